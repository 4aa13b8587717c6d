// Golden outputs of plain JDK behaviour the converters must reproduce.
// Run: java tests/java/JavaCompatGolden.java < cases.jsonl   (needs jackson-databind: -cp '.devstack/connect/libs/*')
//   {"op":"hashmap","keys":[...],"copy":false} -> {"order":[keys in new HashMap<>() + put (or copy-constructor) order]}
//   {"op":"hashset","keys":[...]}              -> {"order":[new HashSet<>(list) iteration order]}
//   {"op":"double","bits":"<long bits>"}        -> {"s":Double.toString}
//   {"op":"float","bits":<int bits>}            -> {"s":Float.toString}
//   {"op":"hash","s":"..."}                     -> {"h":String.hashCode}
//   {"op":"jdk"}                                -> {"feature":Runtime.version().feature()}
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

public class JavaCompatGolden {
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
                case "hashmap": {
                    Map<String, Integer> linked = new LinkedHashMap<>();
                    int i = 0;
                    for (JsonNode k : c.get("keys")) linked.put(k.textValue(), i++);
                    Map<String, Integer> map;
                    if (c.path("copy").asBoolean()) {
                        map = new HashMap<>(linked);
                    } else {
                        map = new HashMap<>();
                        for (Map.Entry<String, Integer> e : linked.entrySet()) map.put(e.getKey(), e.getValue());
                    }
                    ArrayNode order = r.putArray("order");
                    for (String k : map.keySet()) order.add(k);
                    break;
                }
                case "hashset": {
                    java.util.List<String> items = new java.util.ArrayList<>();
                    for (JsonNode k : c.get("keys")) items.add(k.textValue());
                    ArrayNode order = r.putArray("order");
                    for (String k : new java.util.HashSet<>(items)) order.add(k);
                    break;
                }
                case "double":
                    r.put("s", Double.toString(Double.longBitsToDouble(Long.parseLong(c.get("bits").asText()))));
                    break;
                case "float":
                    r.put("s", Float.toString(Float.intBitsToFloat(c.get("bits").asInt())));
                    break;
                case "hash":
                    r.put("h", c.get("s").textValue().hashCode());
                    break;
                case "jdk":
                    r.put("feature", Runtime.version().feature());
                    break;
                default:
                    throw new IllegalArgumentException(line);
            }
            out.println(m.writeValueAsString(r));
        }
        out.flush();
    }
}
