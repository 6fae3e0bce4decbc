package factory

// NoStore is the Store of a command that reads and writes no Butler object through the
// store (webhook serve, install and manifests read or write with their own clients): no
// store implements it, so its Deps hand out none.
type NoStore interface{ readsNoStore() }
