// Runs one suite for one way in this fresh Node process and prints its result as
// one "@@RESULT <json>" line. A fresh process per way keeps one way's threads,
// heap and children out of the next one's numbers.
//   node bench/lib/cell.mjs <suite> <way> '<params json>'
// Exits non-zero, with the reason on stderr, if anything fails.
import { makeWay } from "./ways.mjs";
import { allocateBallast } from "./ballast.mjs";

const [suiteName, wayName, paramsJson = "{}"] = process.argv.slice(2);
const params = JSON.parse(paramsJson);

try {
  const suite = await import(`../suites/${suiteName}.mjs`);
  if (params.ballastGiB > 0) allocateBallast(params.ballastGiB);
  const way = await makeWay(wayName);
  let result;
  try {
    result = await suite.cell(way, params, {
      ready: (info) => process.stdout.write(`@@READY ${JSON.stringify(info)}\n`),
    });
  } finally {
    await way.close();
  }
  process.stdout.write(`@@RESULT ${JSON.stringify(result)}\n`);
  // Do not wait for stray handles (idle pools, sockets): the measurement is over.
  process.exit(0);
} catch (error) {
  process.stderr.write(`bench cell ${suiteName}/${wayName} failed: ${error.stack ?? error}\n`);
  process.exit(1);
}
