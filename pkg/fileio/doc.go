// Package fileio is the one way the tools read and write files.
//
// Reads take only regular files (a symlink to one is followed; devices, FIFOs and sockets
// are refused by name without blocking on them), and never more bytes than a limit,
// counted as they are read rather than trusted from the size a file reports.
//
// Writes (Open, then Commit or WriteFile) follow symlinks and write the file they lead to,
// so a link stays a link; refuse anything but a regular file without touching it (no
// chmod of /dev/null); keep the file's mode, owner and group; write a temporary file
// beside the target, fsync it and rename it over the target, so that a crash leaves the
// old text or the new, never a mix; and create a new file only if its name is still free.
// Lock takes the lock client-go and kubectl take before they edit a kubeconfig
// (FILE.lock, created exclusively), so that the tools and kubectl take turns.
package fileio
