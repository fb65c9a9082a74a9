import io.aiven.kafka.connect.common.config.AivenCommonConfig;
import io.aiven.kafka.connect.common.config.CompressionType;
import io.aiven.kafka.connect.common.config.OutputFieldType;
import io.aiven.kafka.connect.common.output.OutputWriter;
import java.io.IOException;
import java.io.OutputStream;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.sink.SinkRecord;

/**
 * Aiven's S3 sink config as the connector defines it on its commons (io.aiven:commons-for-apache-kafka-connect
 * 0.12.0), and one file written as its S3SinkTask writes a group of records. One source for everything here that
 * runs the commons as the connector does: the oracles AivenNamesOracle and AivenSinkTaskOracle (java_side.py
 * compiles it with them) and the benchmark's Aiven peer, bench/connect_plugins/AivenCommonsS3Sink.java (its
 * Plugin compiles it in). Written from reading the connector (github.com/Aiven-Open/s3-connector-for-apache-kafka,
 * not on Maven Central), not copied from it:
 * - {@link #fileSettings()}: the commons' settings the connector defines (file.compression.type without a default,
 *   format.output.*, file.name.template, file.max.records, file.name.timestamp.*); a subclass adds its own;
 * - the compression getter the connector overrides: an unset file.compression.type is gzip, which also puts ".gz"
 *   on the default template (the commons' getFilename calls the overridden getter);
 * - {@link #writeFile}: the OutputWriter the task builds from these settings, one per file.
 */
public class AivenS3SinkConfig extends AivenCommonConfig {
    AivenS3SinkConfig(Map<String, String> props) {
        this(fileSettings(), props);
    }

    AivenS3SinkConfig(ConfigDef definition, Map<String, String> props) {
        super(definition, props);
    }

    static ConfigDef fileSettings() {
        ConfigDef def = new ConfigDef();
        addCompressionTypeConfig(def, null);
        addOutputFieldsFormatConfigGroup(def, OutputFieldType.VALUE);
        def.define(FILE_NAME_TEMPLATE_CONFIG, ConfigDef.Type.STRING, null, ConfigDef.Importance.MEDIUM, "");
        def.define(FILE_MAX_RECORDS, ConfigDef.Type.INT, 0, ConfigDef.Importance.MEDIUM, "");
        def.define(FILE_NAME_TIMESTAMP_TIMEZONE, ConfigDef.Type.STRING, "UTC", ConfigDef.Importance.LOW, "");
        def.define(FILE_NAME_TIMESTAMP_SOURCE, ConfigDef.Type.STRING, "wallclock", ConfigDef.Importance.LOW, "");
        return def;
    }

    @Override
    public CompressionType getCompressionType() {
        String name = getString(FILE_COMPRESSION_TYPE_CONFIG);
        return name == null ? CompressionType.GZIP : CompressionType.forName(name);
    }

    /** {@code records} as one file into {@code out}; closing the writer closes {@code out}. */
    void writeFile(List<SinkRecord> records, OutputStream out) throws IOException {
        try (OutputWriter writer = OutputWriter.builder()
                .withCompressionType(getCompressionType())
                .withOutputFields(getOutputFields())
                .withEnvelopeEnabled(envelopeEnabled())
                .build(out, getFormatType())) {
            writer.writeRecords(records);
        }
    }
}
