module github.com/wblab/wblab

go 1.26

require (
	github.com/hack-pad/safejs v0.1.0
	github.com/stretchr/testify v1.12.1
	github.com/vugu/vjson v0.0.0-20200505061711-f9cbed27d3d9
	github.com/vugu/vugu v0.4.0
)

require (
	github.com/vugu/html v0.0.0-20190914200101-c62dc20b8289 // indirect
	github.com/vugu/xxhash v0.0.0-20191111030615-ed24d0179019 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)

tool github.com/vugu/vugu/cmd/vugugen
