// Golden outputs of java.io.ObjectOutputStream / ObjectInputStream for the Object[] chunk keys Debezium keeps in
// incremental-snapshot offsets (incremental_snapshot_primary_key / incremental_snapshot_maximum_key).
// Run: java -cp '.devstack/connect/libs/*' tests/java/JavaSerializationGolden.java < cases.jsonl   (needs jackson-databind)
//   {"op":"write","values":[elem...]|null}        -> {"hex": lowercase hex of writeObject(Object[] or null)}
//   {"op":"write","values":[...],"bd":"string"}   -> the same, BigDecimals built by new BigDecimal(String) instead
//   {"op":"write","values":[...],"alias":[j...]}  -> the same, element i replaced by element j (one instance) if j >= 0
//   {"op":"read","hex":"..."}                     -> {"values":[elem...]|null, "same":[index of the first element
//                                                    == this one, else -1]}  or {"error":"<exception>: <message>"}
// An element is null or {"t":<type>,"v":<value>}:
//   Integer/Short: number; Long: number; Boolean: true/false; Double: "<doubleToRawLongBits as decimal>";
//   Float: floatToRawIntBits; String: [UTF-16 code units]; BigDecimal: "<unscaled decimal>" plus "s":<scale>;
//   UUID: "8-4-4-4-12"; bytes: lowercase hex.
// Elements are built the way boxing and JDBC drivers build them: Integer/Long/Short/Boolean.valueOf (so the JDK's
// small-value caches share instances), every other element a distinct object; a BigDecimal holds
// BigInteger.valueOf(unscaled) when the unscaled value fits in a long (which is what a compact BigDecimal inflates
// to when it is serialized), else a fresh BigInteger.
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStreamReader;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.UUID;

public class JavaSerializationGolden {
    private static final HexFormat HEX = HexFormat.of();
    private static final ObjectInputFilter LIMITS = ObjectInputFilter.Config.createFilter("maxarray=1000000");

    public static void main(String[] args) throws Exception {
        ObjectMapper m = new ObjectMapper();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            JsonNode c = m.readTree(line);
            ObjectNode r = m.createObjectNode();
            switch (c.get("op").asText()) {
                case "write": {
                    JsonNode vals = c.get("values");
                    boolean bdString = "string".equals(c.path("bd").asText());
                    Object[] arr = null;
                    if (vals != null && !vals.isNull()) {
                        arr = new Object[vals.size()];
                        for (int i = 0; i < arr.length; i++) arr[i] = element(vals.get(i), bdString);
                        JsonNode alias = c.get("alias");
                        for (int i = 0; alias != null && i < arr.length; i++) {
                            if (alias.get(i).intValue() >= 0) arr[i] = arr[alias.get(i).intValue()];
                        }
                    }
                    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
                    try (ObjectOutputStream oos = new ObjectOutputStream(bytes)) {
                        oos.writeObject(arr);
                    }
                    r.put("hex", HEX.formatHex(bytes.toByteArray()));
                    break;
                }
                case "read": {
                    Object o;
                    try (ObjectInputStream ois =
                            new ObjectInputStream(new ByteArrayInputStream(HEX.parseHex(c.get("hex").asText())))) {
                        ois.setObjectInputFilter(LIMITS);  // corrupted lengths must not allocate gigabytes
                        o = ois.readObject();
                    } catch (Throwable e) {
                        r.put("error", e.getClass().getName() + ": " + e.getMessage());
                        break;
                    }
                    if (o == null) {
                        r.putNull("values");
                        break;
                    }
                    Object[] arr = (Object[]) o;
                    ArrayNode values = r.putArray("values");
                    ArrayNode same = r.putArray("same");
                    for (int i = 0; i < arr.length; i++) {
                        values.add(describe(m, arr[i]));
                        int first = -1;
                        for (int j = 0; j < i; j++) {
                            if (arr[i] != null && arr[j] == arr[i]) {
                                first = j;
                                break;
                            }
                        }
                        same.add(first);
                    }
                    break;
                }
                default:
                    throw new IllegalArgumentException(line);
            }
            out.println(m.writeValueAsString(r));
        }
        out.flush();
    }

    private static Object element(JsonNode e, boolean bdString) {
        if (e == null || e.isNull()) return null;
        JsonNode v = e.get("v");
        switch (e.get("t").asText()) {
            case "Integer":
                return Integer.valueOf(v.intValue());
            case "Long":
                return Long.valueOf(v.longValue());
            case "Short":
                return Short.valueOf((short) v.intValue());
            case "Boolean":
                return Boolean.valueOf(v.booleanValue());
            case "Double":
                return Double.valueOf(Double.longBitsToDouble(Long.parseLong(v.asText())));
            case "Float":
                return Float.valueOf(Float.intBitsToFloat(v.intValue()));
            case "String": {
                char[] chars = new char[v.size()];
                for (int i = 0; i < chars.length; i++) chars[i] = (char) v.get(i).intValue();
                return new String(chars);
            }
            case "BigDecimal": {
                BigInteger unscaled = new BigInteger(v.asText());
                int scale = e.get("s").intValue();
                if (bdString) return new BigDecimal(unscaled + "E" + (-(long) scale));
                if (unscaled.bitLength() < 64) return new BigDecimal(BigInteger.valueOf(unscaled.longValue()), scale);
                return new BigDecimal(unscaled, scale);
            }
            case "UUID":
                return UUID.fromString(v.asText());
            case "bytes":
                return HEX.parseHex(v.asText()).clone();  // parseHex("") answers one shared empty array
            default:
                throw new IllegalArgumentException("element " + e);
        }
    }

    private static JsonNode describe(ObjectMapper m, Object o) {
        if (o == null) return m.nullNode();
        ObjectNode n = m.createObjectNode();
        if (o instanceof Integer) {
            n.put("t", "Integer").put("v", (Integer) o);
        } else if (o instanceof Long) {
            n.put("t", "Long").put("v", (Long) o);
        } else if (o instanceof Short) {
            n.put("t", "Short").put("v", (Short) o);
        } else if (o instanceof Boolean) {
            n.put("t", "Boolean").put("v", (Boolean) o);
        } else if (o instanceof Double) {
            n.put("t", "Double").put("v", Long.toString(Double.doubleToRawLongBits((Double) o)));
        } else if (o instanceof Float) {
            n.put("t", "Float").put("v", Float.floatToRawIntBits((Float) o));
        } else if (o instanceof String) {
            n.put("t", "String");
            ArrayNode units = n.putArray("v");
            for (char ch : ((String) o).toCharArray()) units.add((int) ch);
        } else if (o instanceof BigDecimal) {
            BigDecimal d = (BigDecimal) o;
            n.put("t", "BigDecimal").put("v", d.unscaledValue().toString()).put("s", d.scale());
        } else if (o instanceof UUID) {
            n.put("t", "UUID").put("v", o.toString());
        } else if (o instanceof byte[]) {
            n.put("t", "bytes").put("v", HEX.formatHex((byte[]) o));
        } else {
            n.put("t", "?" + o.getClass().getName());
        }
        return n;
    }
}
