// Conformance CLI: checks an AIC server, in any world, against the PRD's conformance suite (section
// 10). It learns the room's objects, portals and a free tile by observing (--room names the room),
// and asks the server which of this project's extensions it has (its openapi.json, then a request
// only this project's extension answers that way: join, leave, heartbeat, memory/reflect, approach,
// the human WebSocket); what a server lacks is reported as SKIP, with the reason.
//   contract   10.1: valid requests answered ok and invalid ones bad_request, per endpoint (bounds,
//              patterns, enums); a txId replay answered the same, a reuse a conflict, cursors that
//              never go back
//   scenarios  10.2: sign reading, proximity chat (the human is a real WebSocket client of
//              /world/ws), portal movement against golden traces (recorded in the bundled world's
//              lobby: elsewhere skipped by name), cursors checked to progress
//   policy     10.3: required tools present, optional tools gated, denylist wins, tools' details
//              against their schemas (needs the gateway)
// Every answer and event is checked against this project's schemas and, for the PRD's six
// endpoints, the PRD's own (conformance/answer-check.ts).
//   npx node conformance/cli.ts --base-url http://127.0.0.1:18789/aic/v0.1 --room lobby --agent a:<token> --agent b:<token>
//        [--gateway-url http://127.0.0.1:18789 --gateway-token <operator token> --policy-agent main ...]
//   npx node conformance/cli.ts --in-process [--update-golden]
//   --suite contract|scenarios|policy (repeatable) picks suites; --only <scenario> picks scenarios.
// Exit code 0 when every case passes, 1 when one fails, 2 on bad usage; the last line is one JSON
// object with the results.
import { conformanceCommand } from "./command.ts";

process.exit(await conformanceCommand(process.argv.slice(2), console));
