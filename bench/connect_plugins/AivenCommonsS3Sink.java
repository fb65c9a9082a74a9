import io.aiven.kafka.connect.common.grouper.RecordGrouper;
import io.aiven.kafka.connect.common.grouper.RecordGrouperFactory;
import java.io.IOException;
import java.io.OutputStream;
import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.sink.SinkConnector;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.urlconnection.UrlConnectionHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.CompletedPart;

/**
 * The benchmark's stand-in for Aiven's S3 sink connector, which is not on Maven Central (bench/aiven_runs.py,
 * BENCHMARKS.md "Aiven's S3 sink (its commons on Connect)"): a Kafka Connect sink whose task runs Aiven's own
 * commons 0.12.0 (io.aiven:commons-for-apache-kafka-connect) the way Aiven's S3SinkTask does, so the file
 * names (file.name.template, file.max.records) and the bytes (OutputWriter: csv/json/jsonl, gzip...) are
 * Aiven's. Its config and its file writing are tests/support/aiven_oracle/AivenS3SinkConfig.java, compiled in,
 * which the conformance oracle runs too. Written from reading the connector
 * (github.com/Aiven-Open/s3-connector-for-apache-kafka, S3SinkTask and S3OutputStream), not copied from it.
 * The task loop is the connector's:
 * - put() hands every record to the commons' RecordGrouper (one grouper for the task); nothing is written;
 * - flush(), which Connect calls every offset.flush.interval.ms, writes every group the grouper holds (a
 *   group is one file: file.max.records rotates within a flush) through OutputWriter into an S3 multipart
 *   upload of aws.s3.part.size.bytes parts, then clears the grouper; Connect commits the offsets after it.
 * Where it differs from the real connector:
 * - AWS SDK v2 (URL-connection HTTP client, the SDK's default retry policy) where the connector's
 *   releases built on these commons use SDK v1 with a full-jitter back-off of its own settings;
 * - the multipart upload is created at a file's first full part or at its close, not when the stream
 *   opens (the same requests for a file of bytes; a file of no bytes is no object in both);
 * - only the settings the benchmark uses: aws.s3.bucket.name, aws.s3.endpoint, aws.s3.region,
 *   aws.access.key.id, aws.secret.access.key, aws.s3.part.size.bytes and the commons' own (format.*,
 *   file.*); no aws.s3.prefix, STS, server-side encryption or kafka.retry.backoff.ms;
 * - it logs "first records at <ms>" once and "uploaded <key> records=<n> at=<ms>" per object, the marks
 *   bench/aiven_app.py times the work with.
 */
public class AivenCommonsS3Sink extends SinkConnector {
    static final String BUCKET = "aws.s3.bucket.name";
    static final String ENDPOINT = "aws.s3.endpoint";
    static final String REGION = "aws.s3.region";
    static final String ACCESS_KEY_ID = "aws.access.key.id";
    static final String SECRET_ACCESS_KEY = "aws.secret.access.key";
    static final String PART_SIZE = "aws.s3.part.size.bytes";
    static final int DEFAULT_PART_SIZE = 5 * 1024 * 1024;
    static final Logger LOG = LoggerFactory.getLogger(AivenCommonsS3Sink.class);

    private Map<String, String> props;

    @Override
    public void start(Map<String, String> props) {
        new Config(props);  // a bad setting fails the connector now, naming it, not each task later
        this.props = Map.copyOf(props);
    }

    @Override
    public Class<? extends Task> taskClass() {
        return S3Task.class;
    }

    @Override
    public List<Map<String, String>> taskConfigs(int maxTasks) {
        return Collections.nCopies(maxTasks, props);
    }

    @Override
    public void stop() {
    }

    @Override
    public ConfigDef config() {
        return Config.definition();
    }

    @Override
    public String version() {
        return "commons-0.12.0";
    }

    /** The connector's file settings (AivenS3SinkConfig: an unset file.compression.type is gzip), the S3 ones above. */
    public static final class Config extends AivenS3SinkConfig {
        Config(Map<String, String> props) {
            super(definition(), props);
        }

        static ConfigDef definition() {
            ConfigDef def = fileSettings();
            def.define(BUCKET, ConfigDef.Type.STRING, ConfigDef.NO_DEFAULT_VALUE, ConfigDef.Importance.HIGH, "");
            def.define(ENDPOINT, ConfigDef.Type.STRING, ConfigDef.NO_DEFAULT_VALUE, ConfigDef.Importance.HIGH, "");
            def.define(REGION, ConfigDef.Type.STRING, "us-east-1", ConfigDef.Importance.MEDIUM, "");
            def.define(ACCESS_KEY_ID, ConfigDef.Type.PASSWORD, ConfigDef.NO_DEFAULT_VALUE, ConfigDef.Importance.HIGH, "");
            def.define(SECRET_ACCESS_KEY, ConfigDef.Type.PASSWORD, ConfigDef.NO_DEFAULT_VALUE,
                    ConfigDef.Importance.HIGH, "");
            def.define(PART_SIZE, ConfigDef.Type.INT, DEFAULT_PART_SIZE, ConfigDef.Range.atLeast(DEFAULT_PART_SIZE),
                    ConfigDef.Importance.MEDIUM, "");
            return def;
        }

        S3Client client() {
            return S3Client.builder()
                    .endpointOverride(URI.create(getString(ENDPOINT)))
                    .region(Region.of(getString(REGION)))
                    .forcePathStyle(true)
                    .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create(
                            getPassword(ACCESS_KEY_ID).value(), getPassword(SECRET_ACCESS_KEY).value())))
                    .httpClientBuilder(UrlConnectionHttpClient.builder())
                    .build();
        }
    }

    /** Aiven's S3SinkTask loop: put() groups, flush() uploads every group and clears. */
    public static final class S3Task extends SinkTask {
        private Config config;
        private RecordGrouper grouper;
        private S3Client s3;
        private boolean consumed;

        @Override
        public void start(Map<String, String> props) {
            config = new Config(props);
            try {
                grouper = RecordGrouperFactory.newRecordGrouper(config);
            } catch (Exception e) {
                throw new ConnectException("Unsupported file name template " + config.getFilename(), e);
            }
            s3 = config.client();
        }

        @Override
        public void put(Collection<SinkRecord> records) {
            if (!consumed && !records.isEmpty()) {
                consumed = true;
                LOG.info("AivenCommonsS3Sink first records at {}", System.currentTimeMillis());
            }
            records.forEach(grouper::put);
        }

        @Override
        public void flush(Map<TopicPartition, OffsetAndMetadata> offsets) {
            try {
                grouper.records().forEach(this::upload);
            } finally {
                grouper.clear();
            }
        }

        private void upload(String key, List<SinkRecord> records) {
            if (records.isEmpty()) {
                return;
            }
            int partSize = config.getInt(PART_SIZE);
            try (MultipartUpload out = new MultipartUpload(s3, config.getString(BUCKET), key, partSize)) {
                config.writeFile(records, out);
            } catch (IOException e) {
                throw new ConnectException("upload of " + key + " failed", e);
            }
            LOG.info("AivenCommonsS3Sink uploaded {} records={} at={}", key, records.size(), System.currentTimeMillis());
        }

        @Override
        public void stop() {
            if (s3 != null) {
                s3.close();
            }
        }

        @Override
        public String version() {
            return "commons-0.12.0";
        }
    }

    /**
     * One object as an S3 multipart upload: bytes are buffered up to the part size, each full part is uploaded,
     * close() uploads the rest and completes (or, after a failure, aborts) the upload. Closing twice is a no-op:
     * the OutputWriter closes it and so does the task's try-with-resources, as in Aiven's task.
     */
    static final class MultipartUpload extends OutputStream {
        private final S3Client s3;
        private final String bucket;
        private final String key;
        private final byte[] buffer;
        private final List<CompletedPart> parts = new ArrayList<>();
        private int used;
        private String uploadId;
        private boolean closed;

        MultipartUpload(S3Client s3, String bucket, String key, int partSize) {
            this.s3 = s3;
            this.bucket = bucket;
            this.key = key;
            this.buffer = new byte[partSize];
        }

        @Override
        public void write(int b) throws IOException {
            write(new byte[] {(byte) b}, 0, 1);
        }

        @Override
        public void write(byte[] data, int offset, int length) throws IOException {
            while (length > 0) {
                int n = Math.min(length, buffer.length - used);
                System.arraycopy(data, offset, buffer, used, n);
                used += n;
                offset += n;
                length -= n;
                if (used == buffer.length) {
                    uploadPart();
                }
            }
        }

        private void uploadPart() throws IOException {
            try {
                if (uploadId == null) {
                    uploadId = s3.createMultipartUpload(r -> r.bucket(bucket).key(key)).uploadId();
                }
                int number = parts.size() + 1;
                String etag = s3.uploadPart(r -> r.bucket(bucket).key(key).uploadId(uploadId).partNumber(number),
                        RequestBody.fromBytes(Arrays.copyOf(buffer, used))).eTag();
                parts.add(CompletedPart.builder().partNumber(number).eTag(etag).build());
                used = 0;
            } catch (RuntimeException e) {
                abort();
                throw new IOException("part " + (parts.size() + 1) + " of s3://" + bucket + "/" + key + " failed", e);
            }
        }

        @Override
        public void close() throws IOException {
            if (closed) {
                return;
            }
            closed = true;
            if (used > 0) {
                uploadPart();
            }
            if (uploadId == null) {
                return;
            }
            try {
                s3.completeMultipartUpload(r -> r.bucket(bucket).key(key).uploadId(uploadId)
                        .multipartUpload(u -> u.parts(parts)));
            } catch (RuntimeException e) {
                abort();
                throw new IOException("completing s3://" + bucket + "/" + key + " failed", e);
            }
        }

        private void abort() {
            if (uploadId != null) {
                s3.abortMultipartUpload(r -> r.bucket(bucket).key(key).uploadId(uploadId));
                uploadId = null;
            }
        }
    }
}
