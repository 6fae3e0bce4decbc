package structure

// The exceptions the team keeps for now, each with its reason. Entries that no longer
// apply make the tests fail, so the lists only shrink; the lead shrinks them further.

// longFuncs are functions longer than 80 lines, by "path:Name" or "path:Type.Method", each
// with the lines it has: it may shrink (and the record with it), never grow.
var longFuncs = map[string]sized{
	// Libraries: one switch over YAML node kinds or one rule list each, read top to bottom.
	"pkg/policy/admission.go:clusterAdmission.environment": {107, "the webhook's environment step in its order (docs/rules.md §5.3); to be split by check"},
	"pkg/policy/provider.go:ValidateProviderConfigSchema":  {86, "one rule list in spec field order (docs/rules.md §9.1)"},
}

// longFiles are hand-written Go files longer than 400 lines, each with the lines it has.
var longFiles = map[string]sized{
	"internal/testenv/testenv.go":                     {577, "test harness (a real control plane); to be split into start-up and fixtures"},
	"pkg/apis/butler/v1alpha1/tenantcluster_types.go": {558, "the TenantCluster API types, kept in one file as the upstream API does"},
	"pkg/policy/admission.go":                         {684, "TenantCluster admission (docs/rules.md §5); to be split by step"},
	"pkg/policy/usage.go":                             {566, "usage and the exact quantity sums; the sum type to move to a file of its own"},
}

// layerImports are imports across a layer boundary, by "package dir -> import path".
var layerImports = map[string]string{}

// flagWords are messages of pkg/policy and pkg/manifest that name a command-line flag, by
// "path:line" of the string. These packages report what is needed; the command layer
// words it as a flag.
var flagWords = map[string]string{}
