// Golden outputs of the real Debezium 3.6.3 value arithmetic the PostgreSQL converters must reproduce.
// Run: java -cp '.devstack/connect/libs/*:.devstack/debezium/plugins/debezium-connector-postgres/*' \
//        tests/java/DebeziumValueGolden.java < cases.jsonl
//   {"op":"interval","text":"1 year 2 mons"} -> {"micros":<MicroDuration.durationMicros as Debezium calls it>,
//                                              "iso":<Interval.toIsoString>} or {"error":"..."} when pgjdbc fails
//   {"op":"plain","text":"-1E-9"}            -> {"s":new BigDecimal(text).toPlainString()}
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.debezium.time.Interval;
import io.debezium.time.MicroDuration;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import org.postgresql.util.PGInterval;

public class DebeziumValueGolden {
    public static void main(String[] args) throws Exception {
        ObjectMapper m = new ObjectMapper();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            JsonNode c = m.readTree(line);
            ObjectNode r = m.createObjectNode();
            String text = c.get("text").asText();
            try {
                switch (c.get("op").asText()) {
                    case "interval": {
                        // PostgresValueConverter.convertInterval, both interval.handling.modes
                        PGInterval i = new PGInterval(text);
                        r.put("micros", MicroDuration.durationMicros(i.getYears(), i.getMonths(), i.getDays(),
                                i.getHours(), i.getMinutes(), i.getSeconds(), MicroDuration.DAYS_PER_MONTH_AVG));
                        r.put("iso", Interval.toIsoString(i.getYears(), i.getMonths(), i.getDays(), i.getHours(),
                                i.getMinutes(), BigDecimal.valueOf(i.getSeconds())));
                        break;
                    }
                    case "plain":
                        r.put("s", new BigDecimal(text).toPlainString());
                        break;
                    default:
                        throw new IllegalArgumentException("unknown op " + c.get("op"));
                }
            } catch (Exception e) {
                r = m.createObjectNode();
                r.put("error", e.getClass().getSimpleName() + ": " + e.getMessage());
            }
            out.println(m.writeValueAsString(r));
        }
        out.flush();
    }
}
