import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.sink.SinkConnector;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;

/**
 * The smallest sink connector that shows what a Kafka Connect worker hands a sink: one line per record,
 * "topic partition offset key value" with key and value base64 ("-" for null), appended to the file of
 * the "file" setting and flushed when the worker commits offsets. tests/support/connect_standalone.py
 * compiles it against the worker's own connect-api: Kafka's FileStreamSink on Maven Central (4.3.1) does
 * not load in a 4.4 worker (AppInfoParser moved to an internals package), and Aiven's S3 sink is not
 * served by Maven Central at all.
 */
public class RecordsToFileSink extends SinkConnector {
    private Map<String, String> settings;

    @Override public void start(Map<String, String> props) { settings = props; }
    @Override public Class<? extends Task> taskClass() { return RecordsToFileTask.class; }
    @Override public List<Map<String, String>> taskConfigs(int maxTasks) { return List.of(settings); }
    @Override public void stop() { }
    @Override public ConfigDef config() {
        return new ConfigDef().define("file", ConfigDef.Type.STRING, ConfigDef.Importance.HIGH, "the output file");
    }
    @Override public String version() { return "1"; }

    public static class RecordsToFileTask extends SinkTask {
        private Writer out;

        @Override public String version() { return "1"; }
        @Override public void start(Map<String, String> props) {
            try {
                out = Files.newBufferedWriter(Path.of(props.get("file")), StandardCharsets.UTF_8,
                        StandardOpenOption.CREATE, StandardOpenOption.APPEND);
            } catch (IOException e) {
                throw new org.apache.kafka.connect.errors.ConnectException(e);
            }
        }
        @Override public void put(Collection<SinkRecord> records) {
            try {
                for (SinkRecord record : records) {
                    out.write(record.topic() + " " + record.kafkaPartition() + " " + record.kafkaOffset() + " "
                            + encode(record.key()) + " " + encode(record.value()) + "\n");
                }
            } catch (IOException e) {
                throw new org.apache.kafka.connect.errors.RetriableException(e);
            }
        }
        @Override public void flush(Map<TopicPartition, OffsetAndMetadata> offsets) {
            try {
                out.flush();
            } catch (IOException e) {
                throw new org.apache.kafka.connect.errors.RetriableException(e);
            }
        }
        @Override public void stop() {
            try {
                out.close();
            } catch (IOException e) {
                throw new org.apache.kafka.connect.errors.ConnectException(e);
            }
        }
        private static String encode(Object bytes) {
            return bytes == null ? "-" : Base64.getEncoder().encodeToString((byte[]) bytes);
        }
    }
}
