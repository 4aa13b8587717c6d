// Golden outputs from the real org.apache.kafka.connect.json.JsonConverter (and SimpleHeaderConverter).
// Run: java -cp '.devstack/connect/libs/*' tests/java/JsonConverterGolden.java < cases.jsonl
// Each input line is one JSON case; each output line is the answer for it, in the same order.
//   {"op":"from","config":{...},"isKey":false,"schema":<Connect schema JSON|null>,"value":<tagged value>}
//     -> {"bytes":"<base64>"|null} or {"error":"<DataException message>"}
//   {"op":"to","config":{...},"isKey":false,"data":"<base64>"|null}
//     -> {"schema":"<asJsonSchema text>"|null,"value":<tagged value>} or {"error":"..."}
//   {"op":"hfrom","schema":...,"value":...}  SimpleHeaderConverter.fromConnectHeader -> {"bytes":...}
//   {"op":"hto","data":"<base64>"|null}      SimpleHeaderConverter.toConnectHeader   -> {"schema":...,"value":...}
// Tagged values: null | {"i8":n} {"i16":n} {"i32":n} {"i64":n} {"f32":<int bits>} {"f64":"<long bits>"}
//   {"bool":b} {"str":s} {"bytes":"<base64>"} {"dec":"<unscaled>","scale":n} {"date_ms":n}
//   {"list":[...]} {"map":[[k,v],...]} {"struct":[field values in order]}
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.storage.SimpleHeaderConverter;

public class JsonConverterGolden {
    static final ObjectMapper M = new ObjectMapper();
    static final JsonNodeFactory F = JsonNodeFactory.instance;
    static final JsonConverter SCHEMAS = new JsonConverter();

    public static void main(String[] args) throws Exception {
        SCHEMAS.configure(Map.of("schemas.enable", "true"), false);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            JsonNode c = M.readTree(line);
            ObjectNode r = F.objectNode();
            try {
                run(c, r);
            } catch (Exception e) {
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
        Map<String, Object> config = new HashMap<>();
        if (c.has("config")) c.get("config").fields().forEachRemaining(e -> config.put(e.getKey(), e.getValue().asText()));
        boolean isKey = c.has("isKey") && c.get("isKey").asBoolean();
        switch (op) {
            case "from": {
                JsonConverter conv = new JsonConverter();
                conv.configure(config, isKey);
                Schema schema = schemaOf(c.get("schema"));
                Object value = fromTag(schema, c.get("value"));
                putBytes(r, conv.fromConnectData("topic", schema, value));
                break;
            }
            case "to": {
                JsonConverter conv = new JsonConverter();
                conv.configure(config, isKey);
                putSchemaAndValue(r, conv.toConnectData("topic", bytesOf(c.get("data"))));
                break;
            }
            case "hfrom": {
                SimpleHeaderConverter conv = new SimpleHeaderConverter();
                conv.configure(config);
                Schema schema = schemaOf(c.get("schema"));
                putBytes(r, conv.fromConnectHeader("topic", "h", schema, fromTag(schema, c.get("value"))));
                break;
            }
            case "hto": {
                SimpleHeaderConverter conv = new SimpleHeaderConverter();
                conv.configure(config);
                putSchemaAndValue(r, conv.toConnectHeader("topic", "h", bytesOf(c.get("data"))));
                break;
            }
            default:
                throw new IllegalArgumentException("unknown op " + op);
        }
    }

    static Schema schemaOf(JsonNode n) {
        return n == null || n.isNull() ? null : SCHEMAS.asConnectSchema(n);
    }

    static byte[] bytesOf(JsonNode n) {
        return n == null || n.isNull() ? null : Base64.getDecoder().decode(n.asText());
    }

    static void putBytes(ObjectNode r, byte[] b) {
        if (b == null) r.putNull("bytes");
        else r.put("bytes", Base64.getEncoder().encodeToString(b));
    }

    static void putSchemaAndValue(ObjectNode r, SchemaAndValue sv) throws Exception {
        if (sv == null) { // Values.parseString("null") answers a null SchemaAndValue
            r.putNull("schema");
            r.putNull("value");
            r.put("javaNull", true);
            return;
        }
        if (sv.schema() == null) r.putNull("schema");
        else r.put("schema", new String(M.writeValueAsBytes(SCHEMAS.asJsonSchema(sv.schema())), StandardCharsets.UTF_8));
        r.set("value", toTag(sv.value()));
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
                Struct s = new Struct(schema);
                int i = 0;
                for (Field f : schema.fields()) {
                    Object fv = fromTag(f.schema(), v.get(i++));
                    if (fv != null) s.put(f, fv);
                }
                return s;
            }
            default: throw new IllegalArgumentException("unknown tag " + k);
        }
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
