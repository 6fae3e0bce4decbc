package webhook_test

import (
	"github.com/butlerdotdev/butler-toolkit/internal/testenv"
)

func i32(n int32) *int32 { return &n }

// cluster is a TenantCluster of team payments as butlerctl cluster create renders it.
var cluster = testenv.Cluster
