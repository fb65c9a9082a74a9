import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.aiven.kafka.connect.common.config.CompressionType;
import io.aiven.kafka.connect.common.config.FormatType;
import io.aiven.kafka.connect.common.config.OutputField;
import io.aiven.kafka.connect.common.config.OutputFieldEncodingType;
import io.aiven.kafka.connect.common.config.OutputFieldType;
import io.aiven.kafka.connect.common.output.OutputWriter;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Aiven's own file writers (io.aiven:commons-for-apache-kafka-connect, the code its S3 sink writes every
 * object with) over a corpus of cases, for tests/integration/aiven_oracle. One JVM run reads each case from
 * a JSON-lines file: format, compression, output fields with encodings, envelope, and records as
 * ByteArrayConverter hands them to the sink (optional bytes key and value, bytes headers); it writes one
 * JSON line per case: the file's bytes in hex as Aiven's S3SinkTask streams them (OutputWriter built the
 * same way, writeRecords, close), or the error Aiven raised.
 */
public class AivenWriterOracle {
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
                    List<OutputField> fields = new ArrayList<>();
                    for (JsonNode f : c.get("fields")) {
                        fields.add(new OutputField(OutputFieldType.forName(f.get(0).asText()),
                                OutputFieldEncodingType.forName(f.get(1).asText())));
                    }
                    List<SinkRecord> records = new ArrayList<>();
                    for (JsonNode r : c.get("records")) {
                        ConnectHeaders headers = new ConnectHeaders();
                        for (JsonNode h : r.get("headers")) {
                            headers.addBytes(h.get(0).asText(), bytes(hex, h.get(1)));
                        }
                        records.add(new SinkRecord(r.get("topic").asText(), r.get("partition").asInt(),
                                Schema.OPTIONAL_BYTES_SCHEMA, bytes(hex, r.get("key")),
                                Schema.OPTIONAL_BYTES_SCHEMA, bytes(hex, r.get("value")), r.get("offset").asLong(),
                                r.get("timestamp").asLong(), TimestampType.CREATE_TIME, headers));
                    }
                    ByteArrayOutputStream file = new ByteArrayOutputStream();
                    OutputWriter writer = OutputWriter.builder()
                            .withCompressionType(CompressionType.forName(c.get("compression").asText()))
                            .withOutputFields(fields)
                            .withEnvelopeEnabled(c.get("envelope").asBoolean())
                            .build(file, FormatType.forName(c.get("format").asText()));
                    writer.writeRecords(records);
                    writer.close();
                    result.put("bytes", hex.formatHex(file.toByteArray()));
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
