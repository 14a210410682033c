package region

// regions_gen.go is generated from the partition table of the AWS SDK for
// Go v2 at the version go.mod pins. After moving the SDK to a newer
// version, run
//
//	go generate ./localaws/internal/region
//
// which reads the table from the module cache and rewrites regions_gen.go;
// it is checked in, so building leash needs neither.

//go:generate go run ../../../hack/regions -out regions_gen.go
