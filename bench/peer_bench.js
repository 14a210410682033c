#!/usr/bin/env node
// Times the peer engine @cloud-copilot/iam-simulate on the corpus written by
// `go run ./bench/cmd/ratio corpus`, and records its decisions, so that
// `ratio report` can put both engines side by side.
//
// Usage: node bench/peer_bench.js PACKAGE_DIR CORPUS.json [--rounds N] [--round-ms MS] [--warm-ms MS]
//
// PACKAGE_DIR holds the package.json whose node_modules has the pinned peer
// (test/peer). The peer is AGPL-licensed: it runs here as a separate process
// and none of its code is copied.
'use strict'

const fs = require('fs')
const path = require('path')
const { createRequire } = require('module')

function parseArgs(argv) {
  const opts = { rounds: 7, roundMs: 300, warmMs: 1000, positional: [] }
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]
    if (a === '--rounds') opts.rounds = Number(argv[++i])
    else if (a === '--round-ms') opts.roundMs = Number(argv[++i])
    else if (a === '--warm-ms') opts.warmMs = Number(argv[++i])
    else opts.positional.push(a)
  }
  if (opts.positional.length !== 2 || !(opts.rounds > 0) || !(opts.roundMs > 0) || !(opts.warmMs >= 0)) {
    throw new Error('usage: peer_bench.js PACKAGE_DIR CORPUS.json [--rounds N] [--round-ms MS] [--warm-ms MS]')
  }
  return opts
}

// simulationOf builds the peer's input for one request; the policies are
// parsed once, here, and shared by every run.
function simulationOf(policies, r) {
  const contextVariables = {}
  for (const [k, v] of Object.entries(r.context || {})) contextVariables[k] = v
  return {
    request: {
      principal: r.principal,
      action: r.action,
      resource: { resource: r.resource, accountId: r.accountId },
      contextVariables
    },
    identityPolicies: policies,
    serviceControlPolicies: [],
    resourceControlPolicies: []
  }
}

// installedVersion reads the version of the package that holds entry; the
// package exports no ./package.json, so walk up to it.
function installedVersion(entry) {
  for (let dir = path.dirname(entry); dir !== path.dirname(dir); dir = path.dirname(dir)) {
    const file = path.join(dir, 'package.json')
    if (!fs.existsSync(file)) continue
    const pkg = JSON.parse(fs.readFileSync(file, 'utf8'))
    if (pkg.name === '@cloud-copilot/iam-simulate') return pkg.version
  }
  throw new Error(`no package.json of @cloud-copilot/iam-simulate above ${entry}`)
}

const nowNs = () => process.hrtime.bigint()

// timeMode runs every simulation of a case `passes` times per round, after a
// warm-up that also sizes the rounds, and returns the median round's time per
// request in nanoseconds.
async function timeMode(sims, runOne, opts) {
  const pass = async (n) => {
    const start = nowNs()
    for (let k = 0; k < n; k++) {
      for (const s of sims) await runOne(s)
    }
    return Number(nowNs() - start)
  }
  let n = 1
  let warmed = 0
  for (;;) {
    const d = await pass(n)
    warmed += d
    if (d >= (opts.roundMs * 1e6) / 4 && warmed >= opts.warmMs * 1e6) {
      n = Math.max(1, Math.round((n * opts.roundMs * 1e6) / d))
      break
    }
    if (d < (opts.roundMs * 1e6) / 4) n *= 2
  }
  const perOp = []
  for (let r = 0; r < opts.rounds; r++) perOp.push((await pass(n)) / (n * sims.length))
  perOp.sort((a, b) => a - b)
  return perOp[Math.floor(perOp.length / 2)]
}

async function main() {
  const opts = parseArgs(process.argv.slice(2))
  const [pkgDir, corpusFile] = opts.positional
  const req = createRequire(path.resolve(pkgDir, 'package.json'))
  const sim = req('@cloud-copilot/iam-simulate')
  const version = installedVersion(req.resolve('@cloud-copilot/iam-simulate'))
  const corpus = JSON.parse(fs.readFileSync(corpusFile, 'utf8'))

  const unsafe = (s) => sim.runUnsafeSimulation(s, {})
  const strict = (s) => sim.runSimulation(s, { simulationMode: 'Strict' })

  const out = { package: '@cloud-copilot/iam-simulate', version, node: process.version, cases: [] }
  for (const c of corpus.cases) {
    const policies = c.identityPolicies.map((p) => ({ name: p.name, policy: p.document }))
    const sims = c.requests.map((r) => simulationOf(policies, r))
    const requests = []
    for (const s of sims) {
      const u = unsafe(s)
      const r = await strict(s)
      requests.push({
        unsafe: u,
        strict: r.resultType === 'single' ? r.overallResult : `${r.resultType}: ${JSON.stringify(r.errors ?? r)}`,
        ignoredContextKeys: r.result?.ignoredContextKeys ?? []
      })
    }
    const unsafeNsPerOp = await timeMode(sims, unsafe, opts)
    const strictNsPerOp = await timeMode(sims, strict, opts)
    out.cases.push({ name: c.name, unsafeNsPerOp, strictNsPerOp, requests })
    process.stderr.write(`peer: ${c.name}: unsafe ${Math.round(unsafeNsPerOp)} ns/op, strict ${Math.round(strictNsPerOp)} ns/op\n`)
  }
  process.stdout.write(JSON.stringify(out, null, 2) + '\n')
}

main().catch((err) => {
  process.stderr.write(`peer_bench: ${err.stack || err}\n`)
  process.exit(1)
})
