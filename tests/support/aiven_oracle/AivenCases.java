import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.Map;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * What the Aiven oracles (AivenWriterOracle, AivenNamesOracle, AivenSinkTaskOracle) share, compiled with each by
 * java_side.py: the run over a corpus, one JSON line per case in args[0] and one result line per case in args[1]
 * (its "id", what the harness put, or the error Aiven raised as "error"), and the cases' records and configs
 * as java_side.record_json writes them.
 */
final class AivenCases {
    private static final HexFormat HEX = HexFormat.of();

    /** One case: what a harness puts into {@code result} for case {@code c}. */
    interface Harness {
        void run(JsonNode c, ObjectNode result) throws Exception;
    }

    private AivenCases() {
    }

    static void run(String[] args, Harness harness) throws IOException {
        ObjectMapper mapper = new ObjectMapper();
        try (BufferedReader in = Files.newBufferedReader(Path.of(args[0]), StandardCharsets.UTF_8);
             BufferedWriter out = Files.newBufferedWriter(Path.of(args[1]), StandardCharsets.UTF_8)) {
            String line;
            while ((line = in.readLine()) != null) {
                JsonNode c = mapper.readTree(line);
                ObjectNode result = mapper.createObjectNode().put("id", c.get("id").asText());
                try {
                    harness.run(c, result);
                } catch (Exception | LinkageError e) {
                    result.put("error", e.toString());
                }
                out.write(mapper.writeValueAsString(result));
                out.write('\n');
            }
        }
    }

    /** A case's connector config ("config") as the properties a connector is started with. */
    static Map<String, String> config(JsonNode c) {
        Map<String, String> props = new HashMap<>();
        c.get("config").fields().forEachRemaining(e -> props.put(e.getKey(), e.getValue().asText()));
        return props;
    }

    /** A record as the converters hand it: bytes (ByteArrayConverter) or, "string_key", a StringConverter key. */
    static SinkRecord record(JsonNode r) {
        ConnectHeaders headers = new ConnectHeaders();
        for (JsonNode h : r.get("headers")) {
            headers.addBytes(h.get(0).asText(), bytes(h.get(1)));
        }
        byte[] key = bytes(r.get("key"));
        boolean text = r.path("string_key").asBoolean(false);
        return new SinkRecord(r.get("topic").asText(), r.get("partition").asInt(),
                text ? Schema.OPTIONAL_STRING_SCHEMA : Schema.OPTIONAL_BYTES_SCHEMA,
                text && key != null ? new String(key, StandardCharsets.UTF_8) : key,
                Schema.OPTIONAL_BYTES_SCHEMA, bytes(r.get("value")), r.get("offset").asLong(),
                r.get("timestamp").asLong(), TimestampType.CREATE_TIME, headers);
    }

    static String hex(byte[] bytes) {
        return HEX.formatHex(bytes);
    }

    private static byte[] bytes(JsonNode node) {
        return node == null || node.isNull() ? null : HEX.parseHex(node.asText());
    }
}
