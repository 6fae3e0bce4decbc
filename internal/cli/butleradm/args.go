package butleradm

import "os"

func osArgs() []string { return os.Args[1:] }
