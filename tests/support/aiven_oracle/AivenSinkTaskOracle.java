import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.aiven.kafka.connect.common.config.AivenCommonConfig;
import io.aiven.kafka.connect.common.config.CompressionType;
import io.aiven.kafka.connect.common.config.FormatType;
import io.aiven.kafka.connect.common.config.OutputFieldType;
import io.aiven.kafka.connect.common.config.TimestampSource;
import io.aiven.kafka.connect.common.grouper.RecordGrouper;
import io.aiven.kafka.connect.common.grouper.RecordGrouperFactory;
import io.aiven.kafka.connect.common.output.OutputWriter;
import io.aiven.kafka.connect.common.templating.Template;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * What Aiven's S3 sink task (2.x, built on these commons 0.12.0) uploads for a connector config and records
 * handed over in flushes, for tests/integration/aiven_oracle: each flush puts its records into the commons'
 * RecordGrouper and then writes every group with the commons' OutputWriter, as S3SinkTask#put and #flush do;
 * the result is every object key with its bytes in hex, a later flush's object replacing an earlier one of
 * the same key, or the error Aiven raised. Written from reading the connector (github.com/Aiven-Open/
 * s3-connector-for-apache-kafka, not on Maven Central), not copied from it:
 * - the config getters the connector overrides: an unset file.compression.type is gzip, which also puts
 *   ".gz" on the default template (the commons' getFilename calls the overridden getter);
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

    static final class S3Config extends AivenCommonConfig {
        S3Config(Map<String, String> props) {
            super(definition(), props);
        }

        static ConfigDef definition() {
            ConfigDef def = new ConfigDef();
            addCompressionTypeConfig(def, null);
            addOutputFieldsFormatConfigGroup(def, OutputFieldType.VALUE);
            def.define(FILE_NAME_TEMPLATE_CONFIG, ConfigDef.Type.STRING, null, ConfigDef.Importance.MEDIUM, "");
            def.define(FILE_MAX_RECORDS, ConfigDef.Type.INT, 0, ConfigDef.Importance.MEDIUM, "");
            def.define(FILE_NAME_TIMESTAMP_TIMEZONE, ConfigDef.Type.STRING, "UTC", ConfigDef.Importance.LOW, "");
            def.define(FILE_NAME_TIMESTAMP_SOURCE, ConfigDef.Type.STRING, "wallclock", ConfigDef.Importance.LOW, "");
            def.define(PREFIX, ConfigDef.Type.STRING, null, ConfigDef.Importance.MEDIUM, "");
            def.define(PREFIX_TIMESTAMPS, ConfigDef.Type.STRING, "WALLCLOCK", ConfigDef.Importance.LOW, "");
            def.define(PREFIX_TIMEZONE, ConfigDef.Type.STRING, "Z", ConfigDef.Importance.LOW, "");
            return def;
        }

        @Override
        public CompressionType getCompressionType() {
            String name = getString(FILE_COMPRESSION_TYPE_CONFIG);
            return name == null ? CompressionType.GZIP : CompressionType.forName(name);
        }
    }

    public static void main(String[] args) throws Exception {
        ObjectMapper mapper = new ObjectMapper();
        HexFormat hex = HexFormat.of();
        try (BufferedReader in = Files.newBufferedReader(Path.of(args[0]), StandardCharsets.UTF_8);
             BufferedWriter out = Files.newBufferedWriter(Path.of(args[1]), StandardCharsets.UTF_8)) {
            String line;
            while ((line = in.readLine()) != null) {
                JsonNode c = mapper.readTree(line);
                ObjectNode result = mapper.createObjectNode().put("id", c.get("id").asText());
                long before = System.currentTimeMillis();
                try {
                    Map<String, String> props = new HashMap<>();
                    c.get("config").fields().forEachRemaining(e -> props.put(e.getKey(), e.getValue().asText()));
                    S3Config config = new S3Config(props);
                    RecordGrouper grouper = RecordGrouperFactory.newRecordGrouper(config);
                    ObjectNode objects = mapper.createObjectNode();
                    for (JsonNode flush : c.get("flushes")) {
                        for (JsonNode r : flush) {
                            grouper.put(record(hex, r));
                        }
                        for (Map.Entry<String, List<SinkRecord>> file : grouper.records().entrySet()) {
                            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                            try (OutputWriter writer = OutputWriter.builder()
                                    .withCompressionType(config.getCompressionType())
                                    .withOutputFields(config.getOutputFields())
                                    .withEnvelopeEnabled(config.envelopeEnabled())
                                    .build(bytes, config.getFormatType())) {
                                writer.writeRecords(file.getValue());
                            }
                            if (bytes.size() > 0) {
                                objects.put(key(config, file.getKey(), file.getValue().get(0)),
                                        hex.formatHex(bytes.toByteArray()));
                            }
                        }
                        grouper.clear();
                    }
                    result.set("objects", objects);
                } catch (Exception | LinkageError e) {
                    result.put("error", e.toString());
                }
                result.putArray("clock").add(before).add(System.currentTimeMillis());
                out.write(mapper.writeValueAsString(result));
                out.write('\n');
            }
        }
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

    /** A record as the converters hand it: bytes (ByteArrayConverter) or, "string_key", a StringConverter key. */
    private static SinkRecord record(HexFormat hex, JsonNode r) {
        ConnectHeaders headers = new ConnectHeaders();
        for (JsonNode h : r.get("headers")) {
            headers.addBytes(h.get(0).asText(), bytes(hex, h.get(1)));
        }
        byte[] key = bytes(hex, r.get("key"));
        boolean text = r.path("string_key").asBoolean(false);
        return new SinkRecord(r.get("topic").asText(), r.get("partition").asInt(),
                text ? Schema.OPTIONAL_STRING_SCHEMA : Schema.OPTIONAL_BYTES_SCHEMA,
                text && key != null ? new String(key, StandardCharsets.UTF_8) : key,
                Schema.OPTIONAL_BYTES_SCHEMA, bytes(hex, r.get("value")), r.get("offset").asLong(),
                r.get("timestamp").asLong(), TimestampType.CREATE_TIME, headers);
    }

    private static byte[] bytes(HexFormat hex, JsonNode node) {
        return node == null || node.isNull() ? null : hex.parseHex(node.asText());
    }
}
