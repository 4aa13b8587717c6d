// Golden outputs of the real io.debezium.converters.CloudEventsConverter (Debezium 3.6.3.Final, Kafka Connect 4.3.1).
// Run: java -cp '.devstack/debezium/connect-libs/*:.devstack/debezium/plugins/debezium-connector-postgres/*' \
//        tests/java/CloudEventsGolden.java < cases.jsonl
// With Apicurio's Java converter on the classpath (':.devstack/debezium/plugins/apicurio-converter/*'), a case may
// configure the Avro serializer types with avro.apicurio.registry.* keys: Debezium instantiates
// io.apicurio.registry.utils.converter.AvroConverter itself, by name, and it registers in that registry.
// Each input line is one JSON case; each output line is the answer for it, in the same order.
//   {"op":"from","config":{...},"isKey":false,"topic":"t","schema":<Connect schema JSON|null>,"value":<tagged value>,
//    "headers":[{"key":"source","schema":<schema JSON|null>,"value":<tagged value>},...]}
//     -> {"bytes":"<base64>"|null} or {"error":"<message>","class":"<exception class>"}
//     Headers become bytes as a worker with header.converter=JsonConverter (schemas.enable=true) writes them, the
//     setup Debezium documents for metadata.source=header.
//   {"op":"to","config":{...},"isKey":false,"topic":"t","data":"<base64>"|null}
//     -> {"entries":[[key,<tagged value>],...] in the map's order,"dataSchema":"<asJsonSchema text>"|null} or error
//     An Avro CloudEvent reads back as a Struct: its fields' [name, value] in order, and "schema" its schema's text.
//   {"op":"configure","config":{...},"isKey":false} -> {"ok":true} or {"error":...,"class":...}
//   {"op":"schemas"} -> Debezium's own PostgreSQL source schema and transaction block schema as JsonConverter
//     writes them, and Debezium's version (what the Python side's schemas and plugin version must equal)
// Tagged values: null | {"i8":n} {"i16":n} {"i32":n} {"i64":n} {"f32":<int bits>} {"f64":"<long bits>"}
//   {"bool":b} {"str":s} {"bytes":"<base64>"} {"dec":"<unscaled>","scale":n} {"date_ms":n}
//   {"list":[...]} {"map":[[k,v],...]} {"struct":[field values in order]}
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.debezium.config.Configuration;
import io.debezium.connector.postgresql.Module;
import io.debezium.connector.postgresql.PostgresConnectorConfig;
import io.debezium.connector.postgresql.PostgresSourceInfoStructMaker;
import io.debezium.converters.CloudEventsConverter;
import io.debezium.pipeline.txmetadata.TransactionMonitor;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.json.JsonConverter;

public class CloudEventsGolden {
    static final ObjectMapper M = new ObjectMapper();
    static final JsonNodeFactory F = JsonNodeFactory.instance;
    static final JsonConverter SCHEMAS = new JsonConverter();
    static final JsonConverter HEADERS = new JsonConverter();

    public static void main(String[] args) throws Exception {
        SCHEMAS.configure(Map.of("schemas.enable", "true"), false);
        HEADERS.configure(Map.of("schemas.enable", "true", "converter.type", "header"));
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            JsonNode c = M.readTree(line);
            ObjectNode r = F.objectNode();
            try {
                run(c, r);
            } catch (Throwable e) {
                r.removeAll();
                r.put("error", String.valueOf(e.getMessage()));
                r.put("class", e.getClass().getSimpleName());
            }
            out.println(M.writeValueAsString(r));
        }
        out.flush();
    }

    static void run(JsonNode c, ObjectNode r) throws Exception {
        String op = c.get("op").asText();
        if (op.equals("schemas")) {
            PostgresConnectorConfig config = new PostgresConnectorConfig(
                    Configuration.create().with("topic.prefix", "srv").with("database.hostname", "localhost").build());
            PostgresSourceInfoStructMaker maker = new PostgresSourceInfoStructMaker();
            maker.init(Module.name(), Module.version(), config);
            r.put("source", schemaText(maker.schema()));
            r.put("tx", schemaText(TransactionMonitor.TRANSACTION_BLOCK_SCHEMA));
            r.put("version", new CloudEventsConverter().version());
            return;
        }
        Map<String, Object> config = new HashMap<>();
        if (c.has("config")) c.get("config").fields().forEachRemaining(e -> config.put(e.getKey(), e.getValue().asText()));
        boolean isKey = c.has("isKey") && c.get("isKey").asBoolean();
        String topic = c.has("topic") ? c.get("topic").asText() : "topic";
        CloudEventsConverter conv = new CloudEventsConverter();
        conv.configure(config, isKey);
        switch (op) {
            case "configure":
                r.put("ok", true);
                break;
            case "from": {
                Schema schema = schemaOf(c.get("schema"));
                Object value = fromTag(schema, c.get("value"));
                RecordHeaders headers = new RecordHeaders();
                if (c.has("headers")) {
                    for (JsonNode h : c.get("headers")) {
                        String key = h.get("key").asText();
                        Schema hs = schemaOf(h.get("schema"));
                        headers.add(key, HEADERS.fromConnectHeader(topic, key, hs, fromTag(hs, h.get("value"))));
                    }
                }
                byte[] b = conv.fromConnectData(topic, headers, schema, value);
                if (b == null) r.putNull("bytes");
                else r.put("bytes", Base64.getEncoder().encodeToString(b));
                break;
            }
            case "to": {
                JsonNode d = c.get("data");
                SchemaAndValue sv = conv.toConnectData(topic, d == null || d.isNull() ? null : Base64.getDecoder().decode(d.asText()));
                ArrayNode entries = r.putArray("entries");
                Object data = null;
                if (sv.value() instanceof Struct) {
                    Struct s = (Struct) sv.value();
                    for (Field f : s.schema().fields()) {
                        entries.add(F.arrayNode().add(f.name()).add(toTag(s.getWithoutDefault(f.name()))));
                    }
                    data = s.getWithoutDefault("data");
                    r.put("schema", schemaText(sv.schema()));
                } else {
                    for (Map.Entry<?, ?> e : ((Map<?, ?>) sv.value()).entrySet()) {
                        entries.add(F.arrayNode().add(String.valueOf(e.getKey())).add(toTag(e.getValue())));
                        if ("data".equals(e.getKey())) data = e.getValue();
                    }
                }
                if (data instanceof Struct) r.put("dataSchema", schemaText(((Struct) data).schema()));
                else r.putNull("dataSchema");
                break;
            }
            default:
                throw new IllegalArgumentException("unknown op " + op);
        }
    }

    static String schemaText(Schema s) throws Exception {
        return new String(M.writeValueAsBytes(SCHEMAS.asJsonSchema(s)), StandardCharsets.UTF_8);
    }

    static Schema schemaOf(JsonNode n) {
        return n == null || n.isNull() ? null : SCHEMAS.asConnectSchema(n);
    }

    static Object fromTag(Schema schema, JsonNode t) {
        if (t == null || t.isNull()) return null;
        String k = t.fieldNames().next();
        JsonNode v = t.get(k);
        switch (k) {
            case "i8": return (byte) v.asInt();
            case "i16": return (short) v.asInt();
            case "i32": return v.asInt();
            case "i64": return v.asLong();
            case "f32": return Float.intBitsToFloat(v.asInt());
            case "f64": return Double.longBitsToDouble(Long.parseLong(v.asText()));
            case "bool": return v.asBoolean();
            case "str": return v.textValue();
            case "bytes": return Base64.getDecoder().decode(v.asText());
            case "dec": return new BigDecimal(new BigInteger(v.asText()), t.get("scale").asInt());
            case "date_ms": return new java.util.Date(v.asLong());
            case "list": {
                List<Object> l = new ArrayList<>();
                Schema items = schema == null ? null : schema.valueSchema();
                for (JsonNode e : v) l.add(fromTag(items, e));
                return l;
            }
            case "map": {
                Map<Object, Object> m = new LinkedHashMap<>();
                Schema ks = schema == null ? null : schema.keySchema();
                Schema vs = schema == null ? null : schema.valueSchema();
                for (JsonNode e : v) m.put(fromTag(ks, e.get(0)), fromTag(vs, e.get(1)));
                return m;
            }
            case "struct": {
                // the values as they are, unchecked (a required null too, also inside a nested struct): what a
                // connector or a transform may hand over
                Object[] values = new Object[schema.fields().size()];
                int i = 0;
                for (Field f : schema.fields()) values[i] = fromTag(f.schema(), v.get(i++));
                return rawStruct(schema, values);
            }
            default: throw new IllegalArgumentException("unknown tag " + k);
        }
    }

    /** A Struct holding these values without Struct.put's checks (its values array is private). */
    static Struct rawStruct(Schema schema, Object[] values) {
        Struct s = new Struct(schema);
        try {
            java.lang.reflect.Field f = Struct.class.getDeclaredField("values");
            f.setAccessible(true);
            System.arraycopy(values, 0, (Object[]) f.get(s), 0, values.length);
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException(e);
        }
        return s;
    }

    static JsonNode toTag(Object o) {
        ObjectNode n = F.objectNode();
        if (o == null) return F.nullNode();
        if (o instanceof Byte) n.put("i8", (Byte) o);
        else if (o instanceof Short) n.put("i16", (Short) o);
        else if (o instanceof Integer) n.put("i32", (Integer) o);
        else if (o instanceof Long) n.put("i64", (Long) o);
        else if (o instanceof Float) n.put("f32", Float.floatToRawIntBits((Float) o));
        else if (o instanceof Double) n.put("f64", Long.toString(Double.doubleToRawLongBits((Double) o)));
        else if (o instanceof Boolean) n.put("bool", (Boolean) o);
        else if (o instanceof String) n.put("str", (String) o);
        else if (o instanceof byte[]) n.put("bytes", Base64.getEncoder().encodeToString((byte[]) o));
        else if (o instanceof java.nio.ByteBuffer) {  // what an Avro converter reads `bytes` as
            java.nio.ByteBuffer b = ((java.nio.ByteBuffer) o).duplicate();
            byte[] a = new byte[b.remaining()];
            b.get(a);
            n.put("bytes", Base64.getEncoder().encodeToString(a));
        }
        else if (o instanceof BigDecimal) {
            n.put("dec", ((BigDecimal) o).unscaledValue().toString());
            n.put("scale", ((BigDecimal) o).scale());
        } else if (o instanceof java.util.Date) n.put("date_ms", ((java.util.Date) o).getTime());
        else if (o instanceof List) {
            ArrayNode a = n.putArray("list");
            for (Object e : (List<?>) o) a.add(toTag(e));
        } else if (o instanceof Map) {
            ArrayNode a = n.putArray("map");
            for (Map.Entry<?, ?> e : ((Map<?, ?>) o).entrySet()) a.add(F.arrayNode().add(toTag(e.getKey())).add(toTag(e.getValue())));
        } else if (o instanceof Struct) {
            ArrayNode a = n.putArray("struct");
            Struct s = (Struct) o;
            for (Field f : s.schema().fields()) a.add(toTag(s.getWithoutDefault(f.name())));
        } else throw new IllegalArgumentException("cannot tag " + o.getClass());
        return n;
    }
}
