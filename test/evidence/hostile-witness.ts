// A hostile "witness" for tests, run in its own process (`node --import tsx hostile-witness.ts MODE`):
// it answers every add-checkpoint with 200 and the lines MODE names, with the witness signer key in
// HOSTILE_WITNESS_KEY. Prints `listening on URL` once it listens.
//   own:   a line under the log's own key name and id, with a signature of zeros
//   stale: a real cosignature by the witness key, but of another checkpoint
//   mixed: own, stale, then a real cosignature of the checkpoint submitted
import { createServer } from "node:http";
import { cosignCheckpoint } from "../../src/evidence/index.js";

const mode = process.argv[2] ?? "own";
const signer = process.env.HOSTILE_WITNESS_KEY ?? "";

function answer(body: string): string {
  const note = body.slice(body.indexOf("\n\n") + 2);
  const split = note.lastIndexOf("\n\n");
  const text = note.slice(0, split + 1);
  const own = note.slice(split + 2).split("\n")[0]!;
  const [dash, name, base64] = own.split(" ") as [string, string, string];
  const keyId = Buffer.from(base64, "base64").subarray(0, 4);
  const forged = `${dash} ${name} ${Buffer.concat([keyId, Buffer.alloc(72)]).toString("base64")}\n`;
  if (mode === "own") return forged;
  const [origin, size, root] = text.split("\n") as [string, string, string];
  const stale = cosignCheckpoint(`${origin}\n${Number(size) + 1}\n${root}\n`, signer);
  if (mode === "stale") return stale;
  return forged + stale + cosignCheckpoint(text, signer);
}

const server = createServer((request, response) => {
  let body = "";
  request.on("data", (chunk: Buffer) => (body += chunk.toString()));
  request.on("end", () => {
    const text = answer(body);
    response.writeHead(200, { "Content-Type": "text/plain; charset=utf-8" });
    response.end(text);
  });
});
server.listen(0, "127.0.0.1", () => {
  const address = server.address();
  if (typeof address === "object" && address !== null) console.log(`listening on http://127.0.0.1:${address.port}`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
