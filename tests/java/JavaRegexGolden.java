// Golden outputs of java.util.regex for connect_worker.api.java_regex (no jars needed: plain JDK).
// Run: java tests/java/JavaRegexGolden.java < cases.jsonl     one JSON object per line in, one per line out:
//   {"op":"jdk"}                                  -> {"feature":Runtime.version().feature()}
//   {"pattern":"..","flags":2,"inputs":[..],"replacements":[..]}
//     -> {"compiles":false,"error":"<description>","index":n}                       (PatternSyntaxException)
//     -> {"compiles":true,"groups":groupCount,"results":[per input:
//          {"matches":bool,"mgroups":[matches() groups or null],"find":bool,"fgroups":[first find() groups],
//           "start":n,"end":n,"replaced":[per replacement: {"first":..,"all":..} or {"error":".."}]}
//          or {"failure":"<exception thrown while matching>"}]}
// "flags" is Pattern.compile's flags (2 = CASE_INSENSITIVE); groups are strings or null for unset groups.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

public class JavaRegexGolden {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            @SuppressWarnings("unchecked")
            Map<String, Object> c = (Map<String, Object>) new Json(line).value();
            StringBuilder sb = new StringBuilder();
            if ("jdk".equals(c.get("op"))) {
                sb.append("{\"feature\":").append(Runtime.version().feature()).append('}');
            } else {
                answer(c, sb);
            }
            out.println(sb);
        }
        out.flush();
    }

    @SuppressWarnings("unchecked")
    static void answer(Map<String, Object> c, StringBuilder sb) {
        Pattern p;
        try {
            Object flags = c.get("flags");
            p = Pattern.compile((String) c.get("pattern"), flags == null ? 0 : ((Number) flags).intValue());
        } catch (PatternSyntaxException e) {
            sb.append("{\"compiles\":false,\"error\":");
            str(sb, e.getDescription());
            sb.append(",\"index\":").append(e.getIndex()).append('}');
            return;
        }
        int groups = p.matcher("").groupCount();
        sb.append("{\"compiles\":true,\"groups\":").append(groups).append(",\"results\":[");
        List<Object> inputs = (List<Object>) c.getOrDefault("inputs", List.of());
        List<Object> replacements = (List<Object>) c.getOrDefault("replacements", List.of());
        for (int k = 0; k < inputs.size(); k++) {
            if (k > 0) sb.append(',');
            String text = (String) inputs.get(k);
            int mark = sb.length();
            try {
                Matcher m = p.matcher(text);
                boolean matches = m.matches();
                sb.append("{\"matches\":").append(matches).append(",\"mgroups\":");
                groups(sb, matches ? m : null, groups);
                m.reset();
                boolean find = m.find();
                sb.append(",\"find\":").append(find).append(",\"fgroups\":");
                groups(sb, find ? m : null, groups);
                sb.append(",\"start\":").append(find ? m.start() : -1);
                sb.append(",\"end\":").append(find ? m.end() : -1);
                sb.append(",\"replaced\":[");
                for (int r = 0; r < replacements.size(); r++) {
                    if (r > 0) sb.append(',');
                    String rep = (String) replacements.get(r);
                    try {
                        String first = p.matcher(text).replaceFirst(rep);
                        String all = p.matcher(text).replaceAll(rep);
                        sb.append("{\"first\":");
                        str(sb, first);
                        sb.append(",\"all\":");
                        str(sb, all);
                        sb.append('}');
                    } catch (IllegalArgumentException | IndexOutOfBoundsException e) {
                        sb.append("{\"error\":");
                        str(sb, String.valueOf(e.getMessage()));
                        sb.append('}');
                    }
                }
                sb.append("]}");
            } catch (RuntimeException | StackOverflowError e) {
                sb.setLength(mark);
                sb.append("{\"failure\":");
                str(sb, e.getClass().getSimpleName() + ": " + e.getMessage());
                sb.append('}');
            }
        }
        sb.append("]}");
    }

    static void groups(StringBuilder sb, Matcher m, int count) {
        if (m == null) {
            sb.append("null");
            return;
        }
        sb.append('[');
        for (int g = 0; g <= count; g++) {
            if (g > 0) sb.append(',');
            String s = m.group(g);
            if (s == null) sb.append("null");
            else str(sb, s);
        }
        sb.append(']');
    }

    static void str(StringBuilder sb, String s) {
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            if (ch == '"' || ch == '\\') sb.append('\\').append(ch);
            else if (ch < 0x20 || ch > 0x7e) sb.append(String.format("\\u%04x", (int) ch));
            else sb.append(ch);
        }
        sb.append('"');
    }

    /** The JSON the Python side writes: objects, arrays, strings, integers, true/false/null. */
    static final class Json {
        private final String s;
        private int i;

        Json(String s) {
            this.s = s;
        }

        Object value() {
            ws();
            char ch = s.charAt(i);
            if (ch == '{') {
                Map<String, Object> map = new LinkedHashMap<>();
                i++;
                ws();
                if (s.charAt(i) == '}') {
                    i++;
                    return map;
                }
                while (true) {
                    ws();
                    String key = string();
                    ws();
                    i++; // ':'
                    map.put(key, value());
                    ws();
                    if (s.charAt(i++) == '}') return map;
                }
            }
            if (ch == '[') {
                List<Object> list = new ArrayList<>();
                i++;
                ws();
                if (s.charAt(i) == ']') {
                    i++;
                    return list;
                }
                while (true) {
                    list.add(value());
                    ws();
                    if (s.charAt(i++) == ']') return list;
                }
            }
            if (ch == '"') return string();
            if (s.startsWith("true", i)) {
                i += 4;
                return Boolean.TRUE;
            }
            if (s.startsWith("false", i)) {
                i += 5;
                return Boolean.FALSE;
            }
            if (s.startsWith("null", i)) {
                i += 4;
                return null;
            }
            int start = i;
            while (i < s.length() && "-0123456789".indexOf(s.charAt(i)) >= 0) i++;
            return Long.parseLong(s.substring(start, i));
        }

        private String string() {
            StringBuilder b = new StringBuilder();
            i++; // opening quote
            while (true) {
                char ch = s.charAt(i++);
                if (ch == '"') return b.toString();
                if (ch != '\\') {
                    b.append(ch);
                    continue;
                }
                char e = s.charAt(i++);
                switch (e) {
                    case 'n' -> b.append('\n');
                    case 'r' -> b.append('\r');
                    case 't' -> b.append('\t');
                    case 'b' -> b.append('\b');
                    case 'f' -> b.append('\f');
                    case 'u' -> {
                        b.append((char) Integer.parseInt(s.substring(i, i + 4), 16));
                        i += 4;
                    }
                    default -> b.append(e);
                }
            }
        }

        private void ws() {
            while (i < s.length() && Character.isWhitespace(s.charAt(i))) i++;
        }
    }
}
