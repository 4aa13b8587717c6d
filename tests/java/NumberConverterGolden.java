// Golden outputs from the real org.apache.kafka.connect.converters.{Short,Integer,Long,Float,Double,Boolean}Converter.
// Run: java -cp '.devstack/connect/libs/*' tests/java/NumberConverterGolden.java < cases.jsonl
// Each input line is one JSON case; each output line is the answer for it, in the same order.
// Every case names "converter" (the simple class name), "mode" (key | value | header) and "config" (a map of
// strings). key and value call Converter.configure(config, isKey) and from/toConnectData; header calls
// HeaderConverter.configure(config) and from/toConnectHeader.
//   {"op":"from", ..., "schema":<schema|null>, "value":<tagged value>}  -> {"bytes":"<base64>"|null}
//   {"op":"to", ..., "data":"<base64>"|null}                            -> {"schema":<schema|null>,"value":<tagged>}
//   {"op":"configure", ...}                                             -> {"configured":true}
//   {"op":"meta", ...}   -> {"version":"...","config":[{"name","type","required","default","importance","doc"}]}
// A failure answers {"error":"<message>","class":"<simple name>","cause":"<message>"|null,"causeClass":...|null}.
// Schemas: {"type":"<Schema.Type name>","optional":b,"name":s|null}; ARRAY, MAP and STRUCT get fixed children
//   (INT32 items; STRING keys to INT32 values; one optional INT32 field "id").
// Tagged values: null | {"i8":n} {"i16":n} {"i32":n} {"i64":n} {"bigint":"<digits>"} {"f32":<int bits>}
//   {"f64":"<long bits>"} {"bool":b} {"str":s} {"bytes":"<base64>"} {"dec":"<unscaled>","scale":n}
//   {"date_ms":n} {"list":[...]} {"map":[[k,v],...]} (a HashMap) {"struct":[field values]}
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
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.storage.Converter;
import org.apache.kafka.connect.storage.HeaderConverter;

public class NumberConverterGolden {
    static final ObjectMapper M = new ObjectMapper();
    static final JsonNodeFactory F = JsonNodeFactory.instance;
    static final Schema STRUCT = SchemaBuilder.struct().field("id", Schema.OPTIONAL_INT32_SCHEMA).build();

    public static void main(String[] args) throws Exception {
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
                Throwable cause = e.getCause();
                r.put("cause", cause == null ? null : cause.getMessage());
                r.put("causeClass", cause == null ? null : cause.getClass().getSimpleName());
            }
            out.println(M.writeValueAsString(r));
        }
        out.flush();
    }

    static void run(JsonNode c, ObjectNode r) throws Exception {
        Object conv = Class.forName("org.apache.kafka.connect.converters." + c.get("converter").asText())
                .getDeclaredConstructor().newInstance();
        String op = c.get("op").asText();
        if (op.equals("meta")) {
            r.put("version", ((Converter) conv).version());
            ArrayNode keys = r.putArray("config");
            for (ConfigDef.ConfigKey k : ((Converter) conv).config().configKeys().values()) {
                ObjectNode o = keys.addObject();
                o.put("name", k.name);
                o.put("type", k.type.name());
                o.put("required", !k.hasDefault());
                o.put("default", k.hasDefault() ? String.valueOf(k.defaultValue) : null);
                o.put("importance", k.importance.name());
                o.put("doc", k.documentation);
            }
            return;
        }
        Map<String, Object> config = new HashMap<>();
        if (c.has("config")) c.get("config").fields().forEachRemaining(e -> config.put(e.getKey(), e.getValue().asText()));
        String mode = c.get("mode").asText();
        boolean header = mode.equals("header");
        if (header) ((HeaderConverter) conv).configure(config);
        else ((Converter) conv).configure(config, mode.equals("key"));
        switch (op) {
            case "configure":
                r.put("configured", true);
                break;
            case "from": {
                Schema schema = schemaOf(c.get("schema"));
                Object value = fromTag(c.get("value"));
                byte[] b = header
                        ? ((HeaderConverter) conv).fromConnectHeader("topic", "h", schema, value)
                        : ((Converter) conv).fromConnectData("topic", schema, value);
                if (b == null) r.putNull("bytes");
                else r.put("bytes", Base64.getEncoder().encodeToString(b));
                break;
            }
            case "to": {
                JsonNode d = c.get("data");
                byte[] data = d == null || d.isNull() ? null : Base64.getDecoder().decode(d.asText());
                SchemaAndValue sv = header
                        ? ((HeaderConverter) conv).toConnectHeader("topic", "h", data)
                        : ((Converter) conv).toConnectData("topic", data);
                r.set("schema", schemaJson(sv.schema()));
                r.set("value", toTag(sv.value()));
                break;
            }
            default:
                throw new IllegalArgumentException("unknown op " + op);
        }
    }

    static Schema schemaOf(JsonNode n) {
        if (n == null || n.isNull()) return null;
        Schema.Type t = Schema.Type.valueOf(n.get("type").asText());
        SchemaBuilder b;
        switch (t) {
            case ARRAY: b = SchemaBuilder.array(Schema.INT32_SCHEMA); break;
            case MAP: b = SchemaBuilder.map(Schema.STRING_SCHEMA, Schema.INT32_SCHEMA); break;
            case STRUCT: b = SchemaBuilder.struct().field("id", Schema.OPTIONAL_INT32_SCHEMA); break;
            default: b = SchemaBuilder.type(t);
        }
        if (n.path("optional").asBoolean()) b.optional();
        if (n.hasNonNull("name")) b.name(n.get("name").asText());
        return b.build();
    }

    static JsonNode schemaJson(Schema s) {
        if (s == null) return F.nullNode();
        ObjectNode o = F.objectNode();
        o.put("type", s.type().name());
        o.put("optional", s.isOptional());
        o.put("name", s.name());
        return o;
    }

    static Object fromTag(JsonNode t) {
        if (t == null || t.isNull()) return null;
        String k = t.fieldNames().next();
        JsonNode v = t.get(k);
        switch (k) {
            case "i8": return (byte) v.asInt();
            case "i16": return (short) v.asInt();
            case "i32": return v.asInt();
            case "i64": return Long.parseLong(v.asText());
            case "bigint": return new BigInteger(v.asText());
            case "f32": return Float.intBitsToFloat(v.asInt());
            case "f64": return Double.longBitsToDouble(Long.parseLong(v.asText()));
            case "bool": return v.asBoolean();
            case "str": return v.textValue();
            case "bytes": return Base64.getDecoder().decode(v.asText());
            case "dec": return new BigDecimal(new BigInteger(v.asText()), t.get("scale").asInt());
            case "date_ms": return new java.util.Date(v.asLong());
            case "list": {
                List<Object> l = new ArrayList<>();
                for (JsonNode e : v) l.add(fromTag(e));
                return l;
            }
            case "map": {
                Map<Object, Object> m = new HashMap<>();
                for (JsonNode e : v) m.put(fromTag(e.get(0)), fromTag(e.get(1)));
                return m;
            }
            case "struct": {
                Struct s = new Struct(STRUCT);
                int i = 0;
                for (Field f : STRUCT.fields()) s.put(f, fromTag(v.get(i++)));
                return s;
            }
            default: throw new IllegalArgumentException("unknown tag " + k);
        }
    }

    static JsonNode toTag(Object o) {
        if (o == null) return F.nullNode();
        ObjectNode n = F.objectNode();
        if (o instanceof Short) n.put("i16", (Short) o);
        else if (o instanceof Integer) n.put("i32", (Integer) o);
        else if (o instanceof Long) n.put("i64", Long.toString((Long) o));
        else if (o instanceof Float) n.put("f32", Float.floatToRawIntBits((Float) o));
        else if (o instanceof Double) n.put("f64", Long.toString(Double.doubleToRawLongBits((Double) o)));
        else if (o instanceof Boolean) n.put("bool", (Boolean) o);
        else throw new IllegalArgumentException("cannot tag " + o.getClass());
        return n;
    }
}
