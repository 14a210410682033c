module leash.dev/leash

go 1.26.8
