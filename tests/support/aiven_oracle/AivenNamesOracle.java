import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.aiven.kafka.connect.common.config.AivenCommonConfig;
import io.aiven.kafka.connect.common.config.OutputFieldType;
import io.aiven.kafka.connect.common.grouper.RecordGrouper;
import io.aiven.kafka.connect.common.grouper.RecordGrouperFactory;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Aiven's own file naming (the commons' RecordGrouper and Template, which its S3 sink names every object
 * with) over a corpus of cases, for tests/integration/aiven_oracle: each case is a connector config and
 * records as ByteArrayConverter hands them; the result is each file name the grouper makes with the
 * offsets of the records it holds, or the error Aiven raised. The config class defines the file keys as
 * the connector's own config does on top of AivenCommonConfig.
 */
public class AivenNamesOracle {
    static final class SinkConfig extends AivenCommonConfig {
        SinkConfig(Map<String, String> props) {
            super(definition(), props);
        }

        static ConfigDef definition() {
            ConfigDef def = new ConfigDef();
            addCompressionTypeConfig(def, null); // as S3SinkConfig: null, its getter defaults to gzip
            addOutputFieldsFormatConfigGroup(def, OutputFieldType.VALUE);
            def.define(FILE_NAME_TEMPLATE_CONFIG, ConfigDef.Type.STRING, null, ConfigDef.Importance.MEDIUM, "");
            def.define(FILE_MAX_RECORDS, ConfigDef.Type.INT, 0, ConfigDef.Importance.MEDIUM, "");
            def.define(FILE_NAME_TIMESTAMP_TIMEZONE, ConfigDef.Type.STRING, "UTC", ConfigDef.Importance.LOW, "");
            def.define(FILE_NAME_TIMESTAMP_SOURCE, ConfigDef.Type.STRING, "wallclock", ConfigDef.Importance.LOW, "");
            return def;
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
                try {
                    Map<String, String> props = new HashMap<>();
                    c.get("config").fields().forEachRemaining(e -> props.put(e.getKey(), e.getValue().asText()));
                    RecordGrouper grouper = RecordGrouperFactory.newRecordGrouper(new SinkConfig(props));
                    for (JsonNode r : c.get("records")) {
                        grouper.put(new SinkRecord(r.get("topic").asText(), r.get("partition").asInt(),
                                Schema.OPTIONAL_BYTES_SCHEMA, bytes(hex, r.get("key")),
                                Schema.OPTIONAL_BYTES_SCHEMA, bytes(hex, r.get("value")), r.get("offset").asLong(),
                                r.get("timestamp").asLong(), TimestampType.CREATE_TIME));
                    }
                    ObjectNode files = result.putObject("files");
                    for (Map.Entry<String, List<SinkRecord>> file : grouper.records().entrySet()) {
                        var offsets = files.putArray(file.getKey());
                        file.getValue().forEach(record -> offsets.add(record.kafkaOffset()));
                    }
                } catch (Exception | LinkageError e) {
                    result.put("error", e.toString());
                }
                out.write(mapper.writeValueAsString(result));
                out.write('\n');
            }
        }
    }

    private static byte[] bytes(HexFormat hex, JsonNode node) {
        return node == null || node.isNull() ? null : hex.parseHex(node.asText());
    }
}
