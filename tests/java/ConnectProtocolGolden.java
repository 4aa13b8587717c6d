// Golden outputs from the real org.apache.kafka.connect.runtime.distributed.{ConnectProtocol,
// IncrementalCooperativeConnectProtocol}: the join metadata and assignments Connect workers exchange through the
// group coordinator.
// Run: java -cp '.devstack/connect/libs/*' tests/java/ConnectProtocolGolden.java < cases.jsonl
// One JSON case per input line, one answer per output line, in order.
//   {"op":"metadata","protocol":"default|compatible|sessioned","url":s,"offset":n,"assignment":<a>|null}
//       -> {"bytes":"<base64>"}
//   {"op":"assignment","sessioned":b,"assignment":<a>}  -> {"bytes":"<base64>"}
//   {"op":"read_assignment","bytes":"<base64>"}          -> {"assignment":<a>}
//   {"op":"read_metadata","bytes":"<base64>"}            -> {"url":s,"offset":n,"assignment":<a>|null}
// <a> = {"version":n,"error":n,"leader":s,"leaderUrl":s,"offset":n,"connectors":[s],"tasks":[[c,n]],
//        "revokedConnectors":[s],"revokedTasks":[[c,n]],"delay":n}
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import org.apache.kafka.connect.runtime.distributed.ConnectProtocol;
import org.apache.kafka.connect.runtime.distributed.ExtendedAssignment;
import org.apache.kafka.connect.runtime.distributed.ExtendedWorkerState;
import org.apache.kafka.connect.runtime.distributed.IncrementalCooperativeConnectProtocol;
import org.apache.kafka.connect.util.ConnectorTaskId;

public class ConnectProtocolGolden {
    static final ObjectMapper M = new ObjectMapper();

    static List<String> strings(JsonNode n) {
        List<String> out = new ArrayList<>();
        for (JsonNode x : n) out.add(x.asText());
        return out;
    }

    static List<ConnectorTaskId> tasks(JsonNode n) {
        List<ConnectorTaskId> out = new ArrayList<>();
        for (JsonNode x : n) out.add(new ConnectorTaskId(x.get(0).asText(), x.get(1).asInt()));
        return out;
    }

    static ExtendedAssignment assignment(JsonNode a) {
        if (a == null || a.isNull()) return null;
        return new ExtendedAssignment((short) a.get("version").asInt(), (short) a.get("error").asInt(),
                a.get("leader").asText(), a.get("leaderUrl").asText(), a.get("offset").asLong(),
                strings(a.get("connectors")), tasks(a.get("tasks")), strings(a.get("revokedConnectors")),
                tasks(a.get("revokedTasks")), a.get("delay").asInt());
    }

    static ArrayNode taskJson(Collection<ConnectorTaskId> ts) {
        ArrayNode out = M.createArrayNode();
        for (ConnectorTaskId t : ts) out.add(M.createArrayNode().add(t.connector()).add(t.task()));
        return out;
    }

    static JsonNode json(ExtendedAssignment a) {
        if (a == null) return M.nullNode();
        ObjectNode o = M.createObjectNode();
        o.put("version", a.version());
        o.put("error", a.error());
        o.put("leader", a.leader());
        o.put("leaderUrl", a.leaderUrl());
        o.put("offset", a.offset());
        ArrayNode cs = o.putArray("connectors");
        a.connectors().forEach(cs::add);
        o.set("tasks", taskJson(a.tasks()));
        ArrayNode rc = o.putArray("revokedConnectors");
        a.revokedConnectors().forEach(rc::add);
        o.set("revokedTasks", taskJson(a.revokedTasks()));
        o.put("delay", a.delay());
        return o;
    }

    static String b64(ByteBuffer b) {
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return Base64.getEncoder().encodeToString(out);
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            JsonNode c = M.readTree(line);
            ObjectNode answer = M.createObjectNode();
            try {
                switch (c.get("op").asText()) {
                    case "metadata" -> {
                        String protocol = c.get("protocol").asText();
                        ExtendedWorkerState state = new ExtendedWorkerState(c.get("url").asText(),
                                c.get("offset").asLong(), assignment(c.get("assignment")));
                        ByteBuffer b = protocol.equals("default")
                                ? ConnectProtocol.serializeMetadata(state)
                                : IncrementalCooperativeConnectProtocol.serializeMetadata(state, protocol.equals("sessioned"));
                        answer.put("bytes", b64(b));
                    }
                    case "assignment" -> answer.put("bytes", b64(IncrementalCooperativeConnectProtocol.serializeAssignment(
                            assignment(c.get("assignment")), c.get("sessioned").asBoolean())));
                    case "read_assignment" -> answer.set("assignment", json(IncrementalCooperativeConnectProtocol
                            .deserializeAssignment(ByteBuffer.wrap(Base64.getDecoder().decode(c.get("bytes").asText())))));
                    case "read_metadata" -> {
                        ExtendedWorkerState s = IncrementalCooperativeConnectProtocol.deserializeMetadata(
                                ByteBuffer.wrap(Base64.getDecoder().decode(c.get("bytes").asText())));
                        answer.put("url", s.url());
                        answer.put("offset", s.offset());
                        answer.set("assignment", json(s.assignment()));
                    }
                    default -> answer.put("error", "unknown op");
                }
            } catch (Exception e) {
                answer.put("error", String.valueOf(e.getMessage()));
                answer.put("class", e.getClass().getSimpleName());
            }
            out.println(M.writeValueAsString(answer));
        }
        out.flush();
    }
}
