import com.fasterxml.jackson.databind.JsonNode;
import io.aiven.kafka.connect.common.config.CompressionType;
import io.aiven.kafka.connect.common.config.FormatType;
import io.aiven.kafka.connect.common.config.OutputField;
import io.aiven.kafka.connect.common.config.OutputFieldEncodingType;
import io.aiven.kafka.connect.common.config.OutputFieldType;
import io.aiven.kafka.connect.common.output.OutputWriter;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
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
        AivenCases.run(args, (c, result) -> {
            List<OutputField> fields = new ArrayList<>();
            for (JsonNode f : c.get("fields")) {
                fields.add(new OutputField(OutputFieldType.forName(f.get(0).asText()),
                        OutputFieldEncodingType.forName(f.get(1).asText())));
            }
            List<SinkRecord> records = new ArrayList<>();
            for (JsonNode r : c.get("records")) {
                records.add(AivenCases.record(r));
            }
            ByteArrayOutputStream file = new ByteArrayOutputStream();
            OutputWriter writer = OutputWriter.builder()
                    .withCompressionType(CompressionType.forName(c.get("compression").asText()))
                    .withOutputFields(fields)
                    .withEnvelopeEnabled(c.get("envelope").asBoolean())
                    .build(file, FormatType.forName(c.get("format").asText()));
            writer.writeRecords(records);
            writer.close();
            result.put("bytes", AivenCases.hex(file.toByteArray()));
        });
    }
}
