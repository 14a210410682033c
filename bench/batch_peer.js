#!/usr/bin/env node
// Times the peer engine @cloud-copilot/iam-simulate on a batch of
// `leash simulate` requests (JSON Lines, from bench/cmd/batchgen) as a plain
// in-process loop, and compares its decisions with leash's answers.
//
// Usage: node bench/batch_peer.js PACKAGE_DIR REQUESTS.jsonl LEASH_ANSWERS.json
//
// The file is read and every request converted to the peer's input before the
// clock starts (test/peer/peer.js's toSimulation, the differential tests'
// conversion); only the loop over runSimulation is timed. runSimulation is
// the peer's entry point that takes every policy type of the batch:
// runUnsafeSimulation, its fastest, drops the session policy. LEASH_ANSWERS is
// `leash simulate --output json` on the same file. It prints one JSON line:
// {requests, loopMs, disagreements, samples}. The peer is AGPL-licensed: it
// runs here as a separate process and none of its code is copied.
'use strict'

const fs = require('fs')
const path = require('path')
const { createRequire } = require('module')

async function main() {
  const [pkgDir, requestsFile, leashFile] = process.argv.slice(2)
  if (!leashFile) {
    throw new Error('usage: batch_peer.js PACKAGE_DIR REQUESTS.jsonl LEASH_ANSWERS.json')
  }
  const req = createRequire(path.resolve(pkgDir, 'package.json'))
  const { runSimulation } = req('@cloud-copilot/iam-simulate')
  const { toSimulation, decisions } = require(path.resolve(pkgDir, 'peer.js'))

  const sims = []
  for (const line of fs.readFileSync(requestsFile, 'utf8').split('\n')) {
    if (line.trim() !== '') sims.push(toSimulation(JSON.parse(line)))
  }
  const got = new Array(sims.length)
  const start = process.hrtime.bigint()
  for (let i = 0; i < sims.length; i++) {
    const r = await runSimulation(sims[i], { simulationMode: 'Strict' })
    got[i] = r.resultType === 'error' ? 'Error' : decisions[r.overallResult] || 'Error'
  }
  const loopMs = Number(process.hrtime.bigint() - start) / 1e6

  const leash = JSON.parse(fs.readFileSync(leashFile, 'utf8'))
  if (leash.length !== sims.length) {
    throw new Error(`leash answered ${leash.length} requests, the batch has ${sims.length}`)
  }
  let disagreements = 0
  const samples = []
  for (let i = 0; i < sims.length; i++) {
    if (leash[i].decision !== got[i]) {
      disagreements++
      if (samples.length < 5) samples.push({ index: i, leash: leash[i].decision, peer: got[i] })
    }
  }
  process.stdout.write(JSON.stringify({ requests: sims.length, loopMs, disagreements, samples }) + '\n')
}

main().catch((e) => {
  console.error(`batch_peer.js: ${e.message}`)
  process.exit(1)
})
