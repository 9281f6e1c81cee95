// Conformance CLI: checks an AIC server against the PRD's conformance suite (section 10). It asks the
// server which of this project's extensions it has (join, leave, heartbeat, memory/reflect, the human
// WebSocket): against a server with only the PRD's six endpoints it runs the PRD's cases and reports
// the ones that need an extension as SKIP, with the reason (conformance/capabilities.ts).
//   contract   10.1: valid and invalid requests per endpoint (bounds, patterns, enums)
//   scenarios  10.2: sign reading, proximity chat (the human is a real WebSocket client of
//              /world/ws), portal movement against golden traces, every answer checked against the
//              AIC JSON Schema, cursors checked to progress
//   policy     10.3: required tools present, optional tools gated, denylist wins (needs the gateway)
//   npx node conformance/cli.ts --base-url http://127.0.0.1:18789/aic/v0.1 --agent a:<token> --agent b:<token>
//        [--gateway-url http://127.0.0.1:18789 --gateway-token <operator token> --policy-agent main ...]
//   npx node conformance/cli.ts --in-process [--update-golden]
//   --suite contract|scenarios|policy (repeatable) picks suites; --only <scenario> picks scenarios.
// Exit code 0 when every case passes, 1 when one fails, 2 on bad usage; the last line is one JSON
// object with the results.
import { conformanceCommand } from "./command.ts";

process.exit(await conformanceCommand(process.argv.slice(2), console));
