// Golden outputs from the real io.confluent.connect.avro.AvroData (Confluent 7.0.16, Avro 1.11.3).
// Run: java -cp '.devstack/confluent/libs/*:.devstack/connect/libs/*' tests/java/AvroDataGolden.java < cases.jsonl
// Each input line is one JSON case; each output line is the answer for it, in the same order. "config" holds
// AvroDataConfig settings (a key AvroDataConfig does not define is refused: {"fatal": ...}).
//   {"op":"from","config":{...},"schema":<Connect schema JSON, as JsonConverter writes it>,"value":<tagged value>}
//     -> {"avro":"<fromConnectSchema(schema).toString()>" | "schemaError":"...","schemaClass":"..."}
//        and, when the schema converted: {"body":"<base64 of the datum as Confluent's serializer writes it after
//        its 5-byte header: GenericDatumWriter's binary, or the bytes themselves for a top-level bytes schema>"|null}
//        or {"error":"<message>","class":"<exception class>"}
//   {"op":"to","config":{...},"avro":"<Avro schema text>","data":"<base64 Avro binary>"|"json":"<Avro JSON>",
//    "version":n|null}
//     -> {"data":"<base64 of the datum as the serializer writes it (see above)>","schema":"<JsonConverter.asJsonSchema(toConnectSchema)>",
//         "value":<tagged toConnectData value>} or {"error":...,"class":...}; a cyclic Connect schema (of a
//         recursive record) is "cyclic <name>"
// Tagged values are those of JsonConverterGolden.java ({"i32":n}, {"struct":[...]}, ...).
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.confluent.connect.avro.AvroData;
import io.confluent.connect.avro.AvroDataConfig;
import io.confluent.kafka.serializers.NonRecordContainer;
import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.json.JsonConverter;

public class AvroDataGolden {
    static final ObjectMapper M = new ObjectMapper();
    static final JsonNodeFactory F = JsonNodeFactory.instance;
    static final JsonConverter SCHEMAS = new JsonConverter();
    static final Set<String> KNOWN = AvroDataConfig.baseConfigDef().names();

    public static void main(String[] args) throws Exception {
        SCHEMAS.configure(Map.of("schemas.enable", "true"), false);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            JsonNode c = M.readTree(line);
            ObjectNode r = F.objectNode();
            Map<String, Object> config = new HashMap<>();
            c.get("config").fields().forEachRemaining(e -> config.put(e.getKey(), e.getValue().asText()));
            if (!KNOWN.containsAll(config.keySet())) {
                r.put("fatal", "AvroDataConfig 7.0.16 does not define " + config.keySet() + " (knows " + KNOWN + ")");
            } else if (c.get("op").asText().equals("from")) {
                from(c, new AvroData(new AvroDataConfig(config)), r);
            } else {
                to(c, new AvroData(new AvroDataConfig(config)), r);
            }
            out.println(M.writeValueAsString(r));
        }
        out.flush();
    }

    static void from(JsonNode c, AvroData avroData, ObjectNode r) {
        Schema schema = SCHEMAS.asConnectSchema(c.get("schema"));
        org.apache.avro.Schema avro;
        try {
            avro = avroData.fromConnectSchema(schema);
            r.put("avro", avro.toString());
        } catch (Exception e) {
            r.put("schemaError", String.valueOf(e.getMessage()));
            r.put("schemaClass", e.getClass().getName());
            return;
        }
        try {
            Object datum = avroData.fromConnectData(schema, fromTag(schema, c.get("value")));
            if (datum instanceof NonRecordContainer) datum = ((NonRecordContainer) datum).getValue();
            if (datum == null) {
                r.putNull("body");
                return;
            }
            r.put("body", Base64.getEncoder().encodeToString(body(avro, datum)));
        } catch (Exception e) {
            r.put("error", String.valueOf(e.getMessage()));
            r.put("class", e.getClass().getName());
        }
    }

    static void to(JsonNode c, AvroData avroData, ObjectNode r) {
        try {
            org.apache.avro.Schema avro = new org.apache.avro.Schema.Parser().parse(c.get("avro").asText());
            Object datum;
            if (c.has("json")) {
                datum = new GenericDatumReader<Object>(avro).read(null, DecoderFactory.get().jsonDecoder(avro, c.get("json").asText()));
            } else if (avro.getType() == org.apache.avro.Schema.Type.BYTES) {
                datum = Base64.getDecoder().decode(c.get("data").asText()); // the deserializer's raw bytes
            } else {
                byte[] data = Base64.getDecoder().decode(c.get("data").asText());
                datum = new GenericDatumReader<Object>(avro).read(null, DecoderFactory.get().binaryDecoder(data, null));
            }
            r.put("data", Base64.getEncoder().encodeToString(body(avro, datum)));
            JsonNode v = c.get("version");
            Integer version = v == null || v.isNull() ? null : v.asInt();
            SchemaAndValue sv = avroData.toConnectData(avro, datum, version);
            if (sv == null) {
                r.putNull("schema");
                r.putNull("value");
                return;
            }
            try {
                r.put("schema", new String(M.writeValueAsBytes(SCHEMAS.asJsonSchema(sv.schema())), StandardCharsets.UTF_8));
            } catch (StackOverflowError e) { // a recursive Avro record makes a cyclic Connect schema: JSON cannot hold it
                r.put("schema", "cyclic " + sv.schema().name());
            }
            r.set("value", toTag(sv.value()));
        } catch (Exception e) {
            r.put("error", String.valueOf(e.getMessage()));
            r.put("class", e.getClass().getName());
        }
    }

    // The serializer's body: a top-level bytes schema writes the bytes themselves, anything else the Avro binary.
    static byte[] body(org.apache.avro.Schema avro, Object datum) throws java.io.IOException {
        if (avro.getType() == org.apache.avro.Schema.Type.BYTES) {
            if (datum instanceof byte[]) return (byte[]) datum;
            return ((ByteBuffer) datum).array();
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        BinaryEncoder encoder = EncoderFactory.get().binaryEncoder(bytes, null);
        new GenericDatumWriter<Object>(avro).write(datum, encoder);
        encoder.flush();
        return bytes.toByteArray();
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
                for (JsonNode e : v) l.add(fromTag(schema.valueSchema(), e));
                return l;
            }
            case "map": {
                Map<Object, Object> m = new LinkedHashMap<>();
                for (JsonNode e : v) m.put(fromTag(schema.keySchema(), e.get(0)), fromTag(schema.valueSchema(), e.get(1)));
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
        else if (o instanceof ByteBuffer) {
            ByteBuffer b = ((ByteBuffer) o).duplicate();
            byte[] a = new byte[b.remaining()];
            b.get(a);
            n.put("bytes", Base64.getEncoder().encodeToString(a));
        } else if (o instanceof BigDecimal) {
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
