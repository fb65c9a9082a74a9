import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.aiven.kafka.connect.common.grouper.RecordGrouper;
import io.aiven.kafka.connect.common.grouper.RecordGrouperFactory;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Aiven's own file naming (the commons' RecordGrouper and Template, which its S3 sink names every object
 * with) over a corpus of cases, for tests/integration/aiven_oracle: each case is a connector config and
 * records as ByteArrayConverter hands them; the result is each file name the grouper makes with the
 * offsets of the records it holds, or the error Aiven raised. The config is the connector's file settings
 * on top of AivenCommonConfig (AivenS3SinkConfig).
 */
public class AivenNamesOracle {
    public static void main(String[] args) throws Exception {
        AivenCases.run(args, (c, result) -> {
            RecordGrouper grouper = RecordGrouperFactory.newRecordGrouper(new AivenS3SinkConfig(AivenCases.config(c)));
            for (JsonNode r : c.get("records")) {
                grouper.put(AivenCases.record(r));
            }
            ObjectNode files = result.putObject("files");
            for (Map.Entry<String, List<SinkRecord>> file : grouper.records().entrySet()) {
                var offsets = files.putArray(file.getKey());
                file.getValue().forEach(record -> offsets.add(record.kafkaOffset()));
            }
        });
    }
}
