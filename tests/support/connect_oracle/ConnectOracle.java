import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.header.Header;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.storage.Converter;
import org.apache.kafka.connect.storage.HeaderConverter;
import org.apache.kafka.connect.storage.SimpleHeaderConverter;
import org.apache.kafka.connect.transforms.Transformation;
import org.apache.kafka.connect.transforms.predicates.Predicate;

/**
 * Kafka Connect's own converters and transforms over a corpus of cases, for lakesink's oracle test
 * (tests/integration/connect_oracle). One JVM run reads every case from a JSON-lines file and writes
 * one JSON line per case: what a sink task would hand its connector, as WorkerSinkTask builds it
 * (key, value and header converters, then the transform chain with its predicates).
 *
 * <p>A case is {"id", "props", "topic", "partition", "offset", "timestamp", "key", "value",
 * "headers": [[name, bytes]]}, bytes in base64, props as a connector config (key.converter,
 * value.converter, header.converter and their settings, transforms, predicates). The result is
 * {"id", "outcome": "record" | "dropped" | "config-error" | "record-error", ...}; a record is
 * rendered by {@link #render} and {@link #schema}, and its value and key serialised by a schemaless
 * JsonConverter (decimal.format=NUMERIC), its headers by the case's header converter.
 */
public final class ConnectOracle {
    private static final ObjectMapper MAPPER = new ObjectMapper();
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;
    private static final Base64.Encoder B64 = Base64.getEncoder();
    private static final Base64.Decoder UNB64 = Base64.getDecoder();

    private ConnectOracle() {}

    public static void main(String[] args) throws Exception {
        JsonConverter serialiser = new JsonConverter();
        serialiser.configure(Map.of("schemas.enable", "false", "decimal.format", "NUMERIC", "converter.type", "value"));
        try (BufferedReader in = Files.newBufferedReader(Path.of(args[0]), StandardCharsets.UTF_8);
             BufferedWriter out = Files.newBufferedWriter(Path.of(args[1]), StandardCharsets.UTF_8)) {
            String line;
            while ((line = in.readLine()) != null) {
                if (line.isBlank()) {
                    continue;
                }
                JsonNode spec = MAPPER.readTree(line);
                ObjectNode result = run(spec, serialiser);
                result.put("id", spec.get("id").asText());
                out.write(MAPPER.writeValueAsString(result));
                out.newLine();
            }
        }
    }

    private static ObjectNode run(JsonNode spec, JsonConverter serialiser) {
        ObjectNode result = NODES.objectNode();
        Map<String, String> props = new HashMap<>();
        spec.get("props").properties().forEach(e -> props.put(e.getKey(), e.getValue().asText()));
        Converter keyConverter;
        Converter valueConverter;
        HeaderConverter headerConverter;
        List<Stage> stages;
        try {
            keyConverter = converter(props, "key.converter", true);
            valueConverter = converter(props, "value.converter", false);
            headerConverter = headerConverter(props);
            stages = stages(props);
        } catch (RuntimeException | ReflectiveOperationException e) {
            return failure(result, "config-error", e);
        }
        String topic = spec.get("topic").asText();
        SinkRecord record;
        try {
            record = convert(spec, topic, keyConverter, valueConverter, headerConverter);
        } catch (RuntimeException e) {
            return failure(result, "record-error", e);
        }
        for (Stage stage : stages) {
            try {
                if (stage.predicate == null || stage.negate ^ stage.predicate.test(record)) {
                    record = stage.transformation.apply(record);
                }
            } catch (RuntimeException e) {
                return failure(result, "record-error", e);
            }
            if (record == null) {
                result.put("outcome", "dropped");
                return result;
            }
        }
        result.put("outcome", "record");
        result.put("topic", record.topic());
        result.put("partition", record.kafkaPartition());
        if (record.timestamp() == null) {
            result.putNull("timestamp");
        } else {
            result.put("timestamp", record.timestamp());
        }
        part(result, "key", record.keySchema(), record.key(), topic, serialiser);
        part(result, "value", record.valueSchema(), record.value(), topic, serialiser);
        ArrayNode headers = result.putArray("headers");
        for (Header header : record.headers()) {
            ObjectNode h = headers.addObject();
            h.put("name", header.key());
            h.set("value", render(header.schema(), header.value()));
            h.set("schema", schema(header.schema()));
            try {
                byte[] bytes = headerConverter.fromConnectHeader(topic, header.key(), header.schema(), header.value());
                h.put("bytes", bytes == null ? null : B64.encodeToString(bytes));
            } catch (RuntimeException e) {
                h.put("bytes_error", e.getClass().getSimpleName() + ": " + e.getMessage());
            }
        }
        return result;
    }

    /** WorkerSinkTask.convertAndTransformRecord up to the transforms: converters, then a SinkRecord. */
    private static SinkRecord convert(
            JsonNode spec, String topic, Converter keyConverter, Converter valueConverter, HeaderConverter headerConverter) {
        RecordHeaders kafkaHeaders = new RecordHeaders();
        ConnectHeaders headers = new ConnectHeaders();
        for (JsonNode pair : spec.get("headers")) {
            String name = pair.get(0).asText();
            byte[] bytes = bytes(pair.get(1));
            kafkaHeaders.add(name, bytes);
            SchemaAndValue converted = headerConverter.toConnectHeader(topic, name, bytes);
            headers.add(name, converted);
        }
        SchemaAndValue key = keyConverter.toConnectData(topic, kafkaHeaders, bytes(spec.get("key")));
        SchemaAndValue value = valueConverter.toConnectData(topic, kafkaHeaders, bytes(spec.get("value")));
        JsonNode timestamp = spec.get("timestamp");
        return new SinkRecord(
                topic,
                spec.get("partition").asInt(),
                key.schema(),
                key.value(),
                value.schema(),
                value.value(),
                spec.get("offset").asLong(),
                timestamp == null || timestamp.isNull() ? null : timestamp.asLong(),
                TimestampType.CREATE_TIME,
                headers);
    }

    private static void part(ObjectNode result, String name, Schema schema, Object data, String topic, JsonConverter serialiser) {
        result.set(name, render(schema, data));
        result.set(name + "_schema", schema(schema));
        try {
            byte[] json = serialiser.fromConnectData(topic, schema, data);
            result.put(name + "_json", json == null ? null : B64.encodeToString(json));
        } catch (RuntimeException e) {
            result.put(name + "_json_error", e.getClass().getSimpleName() + ": " + e.getMessage());
        }
    }

    private static ObjectNode failure(ObjectNode result, String outcome, Throwable e) {
        result.put("outcome", outcome);
        result.put("error", e.getClass().getSimpleName() + ": " + e.getMessage());
        return result;
    }

    private static byte[] bytes(JsonNode node) {
        return node == null || node.isNull() ? null : UNB64.decode(node.asText());
    }

    private static Map<String, String> withPrefix(Map<String, String> props, String prefix) {
        Map<String, String> out = new HashMap<>();
        props.forEach((k, v) -> {
            if (k.startsWith(prefix)) {
                out.put(k.substring(prefix.length()), v);
            }
        });
        return out;
    }

    private static Object instance(String className) throws ReflectiveOperationException {
        return Class.forName(className.trim()).getDeclaredConstructor().newInstance();
    }

    /** Plugins.newConverter: the class's settings with converter.type set, configured for key or value. */
    private static Converter converter(Map<String, String> props, String setting, boolean isKey)
            throws ReflectiveOperationException {
        Converter converter = (Converter) instance(props.get(setting));
        Map<String, String> config = withPrefix(props, setting + ".");
        config.put("converter.type", isKey ? "key" : "value");
        converter.configure(config, isKey);
        return converter;
    }

    /** Plugins.newHeaderConverter: SimpleHeaderConverter unless header.converter names another class. */
    private static HeaderConverter headerConverter(Map<String, String> props) throws ReflectiveOperationException {
        String name = props.get("header.converter");
        HeaderConverter converter = name == null ? new SimpleHeaderConverter() : (HeaderConverter) instance(name);
        Map<String, String> config = withPrefix(props, "header.converter.");
        config.put("converter.type", "header");
        converter.configure(config);
        return converter;
    }

    private record Stage(Transformation<SinkRecord> transformation, Predicate<SinkRecord> predicate, boolean negate) {}

    /** ConnectorConfig.transformationStages: each alias's class configured with its own settings. */
    @SuppressWarnings("unchecked")
    private static List<Stage> stages(Map<String, String> props) throws ReflectiveOperationException {
        List<Stage> stages = new ArrayList<>();
        for (String alias : aliases(props.get("transforms"))) {
            Map<String, String> config = withPrefix(props, "transforms." + alias + ".");
            Transformation<SinkRecord> transformation = (Transformation<SinkRecord>) instance(config.remove("type"));
            String predicateAlias = config.remove("predicate");
            boolean negate = Boolean.parseBoolean(config.remove("negate"));
            transformation.configure(config);
            Predicate<SinkRecord> predicate = null;
            if (predicateAlias != null) {
                Map<String, String> predicateConfig = withPrefix(props, "predicates." + predicateAlias + ".");
                predicate = (Predicate<SinkRecord>) instance(predicateConfig.remove("type"));
                predicate.configure(predicateConfig);
            }
            stages.add(new Stage(transformation, predicate, negate));
        }
        return stages;
    }

    private static List<String> aliases(String list) {
        List<String> out = new ArrayList<>();
        if (list != null) {
            for (String alias : list.split(",")) {
                if (!alias.isBlank()) {
                    out.add(alias.trim());
                }
            }
        }
        return out;
    }

    /**
     * Connect data as tagged JSON both sides can build: bytes, decimals and the three time types are
     * {"$bytes": base64}, {"$decimal": plain text}, {"$timestamp"|"$date"|"$time": number}.
     */
    static JsonNode render(Schema schema, Object value) {
        if (value == null) {
            return NODES.nullNode();
        }
        String logical = schema == null ? null : schema.name();
        if (value instanceof Date date) {
            long millis = date.getTime();
            if ("org.apache.kafka.connect.data.Date".equals(logical)) {
                return tagged("$date", NODES.numberNode(Math.floorDiv(millis, 86_400_000L)));
            }
            if ("org.apache.kafka.connect.data.Time".equals(logical)) {
                return tagged("$time", NODES.numberNode(millis));
            }
            return tagged("$timestamp", NODES.numberNode(millis));
        }
        if (value instanceof BigDecimal decimal) {
            return tagged("$decimal", NODES.textNode(decimal.toPlainString()));
        }
        if (value instanceof byte[] raw) {
            return tagged("$bytes", NODES.textNode(B64.encodeToString(raw)));
        }
        if (value instanceof ByteBuffer buffer) {
            byte[] raw = new byte[buffer.remaining()];
            buffer.duplicate().get(raw);
            return tagged("$bytes", NODES.textNode(B64.encodeToString(raw)));
        }
        if (value instanceof Struct struct) {
            ObjectNode node = NODES.objectNode();
            for (Field field : struct.schema().fields()) {
                node.set(field.name(), render(field.schema(), struct.get(field)));
            }
            return node;
        }
        if (value instanceof Map<?, ?> map) {
            ObjectNode node = NODES.objectNode();
            Schema values = schema == null ? null : schema.valueSchema();
            for (Map.Entry<?, ?> entry : map.entrySet()) {
                node.set(String.valueOf(entry.getKey()), render(values, entry.getValue()));
            }
            return node;
        }
        if (value instanceof List<?> list) {
            ArrayNode node = NODES.arrayNode();
            Schema items = schema == null ? null : schema.valueSchema();
            for (Object item : list) {
                node.add(render(items, item));
            }
            return node;
        }
        if (value instanceof Boolean b) {
            return NODES.booleanNode(b);
        }
        if (value instanceof Float f) {
            return NODES.numberNode(f.doubleValue()); // the value a Python float holds of it
        }
        if (value instanceof Double d) {
            return NODES.numberNode(d);
        }
        if (value instanceof Number n) {
            return NODES.numberNode(n.longValue());
        }
        if (value instanceof String s) {
            return NODES.textNode(s);
        }
        return tagged("$unknown", NODES.textNode(value.getClass().getName() + ": " + value));
    }

    private static ObjectNode tagged(String tag, JsonNode value) {
        ObjectNode node = NODES.objectNode();
        node.set(tag, value);
        return node;
    }

    /** A Connect schema as {"type", "optional", "name"?, "fields"?: [[name, schema]], "items"?, "keys"?, "values"?}. */
    static JsonNode schema(Schema schema) {
        if (schema == null) {
            return NODES.nullNode();
        }
        ObjectNode node = NODES.objectNode();
        node.put("type", schema.type().getName());
        node.put("optional", schema.isOptional());
        if (schema.name() != null) {
            node.put("name", schema.name());
        }
        switch (schema.type()) {
            case STRUCT -> {
                ArrayNode fields = node.putArray("fields");
                for (Field field : schema.fields()) {
                    fields.addArray().add(field.name()).add(schema(field.schema()));
                }
            }
            case ARRAY -> node.set("items", schema(schema.valueSchema()));
            case MAP -> {
                node.set("keys", schema(schema.keySchema()));
                node.set("values", schema(schema.valueSchema()));
            }
            default -> { }
        }
        return node;
    }
}
