package webhook_test

import (
	"os"
	"testing"

	"github.com/butlerdotdev/butler-toolkit/internal/testenv"
)

// The live tests share one control plane with Butler's webhooks registered and served by
// this package (testenv.WithWebhook). They run one after another (none is parallel), each
// setting the state it needs.
//
// Started again with haChildCertDir set, the test binary is a webhook backend of the HA
// test instead (haChild).
func TestMain(m *testing.M) {
	if os.Getenv(haChildCertDir) != "" {
		os.Exit(haChild())
	}
	if os.Getenv(abuseChildCertDir) != "" {
		os.Exit(abuseChild())
	}
	os.Exit(testenv.Run(m))
}
