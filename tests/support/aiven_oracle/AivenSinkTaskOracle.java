import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.aiven.kafka.connect.common.config.FormatType;
import io.aiven.kafka.connect.common.config.TimestampSource;
import io.aiven.kafka.connect.common.grouper.RecordGrouper;
import io.aiven.kafka.connect.common.grouper.RecordGrouperFactory;
import io.aiven.kafka.connect.common.templating.Template;
import java.io.ByteArrayOutputStream;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * What Aiven's S3 sink task (2.x, built on these commons 0.12.0) uploads for a connector config and records
 * handed over in flushes, for tests/integration/aiven_oracle: each flush puts its records into the commons'
 * RecordGrouper and then writes every group with the commons' OutputWriter, as S3SinkTask#put and #flush do;
 * the result is every object key with its bytes in hex, a later flush's object replacing an earlier one of
 * the same key, or the error Aiven raised. Written from reading the connector (github.com/Aiven-Open/
 * s3-connector-for-apache-kafka, not on Maven Central), not copied from it:
 * - the connector's config and its files as AivenS3SinkConfig has them (an unset file.compression.type is
 *   gzip), with the key prefix's settings added;
 * - with aws.s3.prefix the key is the rendered prefix + topic-partition-%020d start offset + the
 *   compression's extension, the template only groups (S3SinkTask#oldFullKey), its variables those of
 *   the file's first record: {{topic}}, {{partition}}, {{start_offset[:padding=true]}}, {{utc_date}},
 *   {{local_date}} (the JVM's zone) and {{timestamp:unit=...}} (the deprecated timestamp.source and
 *   timestamp.timezone, through the commons' TimestampSource);
 * - a file of no bytes is no object (S3OutputStream uploads nothing).
 * Wall-clock names read the JVM's clock; the result gives it before and after the run ("clock").
 */
public class AivenSinkTaskOracle {
    static final String PREFIX = "aws.s3.prefix";
    static final String PREFIX_TIMESTAMPS = "timestamp.source";
    static final String PREFIX_TIMEZONE = "timestamp.timezone";

    /** The connector's file settings and the three of its key prefix. */
    static final class S3Config extends AivenS3SinkConfig {
        S3Config(Map<String, String> props) {
            super(definition(), props);
        }

        static ConfigDef definition() {
            ConfigDef def = fileSettings();
            def.define(PREFIX, ConfigDef.Type.STRING, null, ConfigDef.Importance.MEDIUM, "");
            def.define(PREFIX_TIMESTAMPS, ConfigDef.Type.STRING, "WALLCLOCK", ConfigDef.Importance.LOW, "");
            def.define(PREFIX_TIMEZONE, ConfigDef.Type.STRING, "Z", ConfigDef.Importance.LOW, "");
            return def;
        }
    }

    public static void main(String[] args) throws Exception {
        AivenCases.run(args, (c, result) -> {
            long before = System.currentTimeMillis();
            try {
                S3Config config = new S3Config(AivenCases.config(c));
                RecordGrouper grouper = RecordGrouperFactory.newRecordGrouper(config);
                ObjectNode objects = result.objectNode();
                for (JsonNode flush : c.get("flushes")) {
                    for (JsonNode r : flush) {
                        grouper.put(AivenCases.record(r));
                    }
                    for (Map.Entry<String, List<SinkRecord>> file : grouper.records().entrySet()) {
                        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                        config.writeFile(file.getValue(), bytes);
                        if (bytes.size() > 0) {
                            objects.put(key(config, file.getKey(), file.getValue().get(0)),
                                    AivenCases.hex(bytes.toByteArray()));
                        }
                    }
                    grouper.clear();
                }
                result.set("objects", objects);
            } finally {
                result.putArray("clock").add(before).add(System.currentTimeMillis());
            }
        });
    }

    private static String key(S3Config config, String filename, SinkRecord first) {
        String prefix = config.getString(PREFIX);
        if (prefix == null) {
            return filename;
        }
        String rendered = Template.of(prefix).instance()
                .bindVariable("topic", first::topic)
                .bindVariable("partition", () -> first.kafkaPartition().toString())
                .bindVariable("start_offset", parameter -> parameter.asBoolean()
                        ? String.format("%020d", first.kafkaOffset()) : Long.toString(first.kafkaOffset()))
                .bindVariable("utc_date", () -> LocalDate.now(ZoneOffset.UTC).toString())
                .bindVariable("local_date", () -> LocalDate.now().toString())
                .bindVariable("timestamp", parameter -> TimestampSource.of(
                        ZoneId.of(config.getString(PREFIX_TIMEZONE)),
                        TimestampSource.Type.of(config.getString(PREFIX_TIMESTAMPS))
                ).time(first).format(DateTimeFormatter.ofPattern(parameter.value())))
                .render();
        String avro = FormatType.AVRO.equals(config.getFormatType()) ? ".avro" : "";
        return rendered + String.format("%s-%d-%020d", first.topic(), first.kafkaPartition(), first.kafkaOffset())
                + avro + config.getCompressionType().extension();
    }
}
