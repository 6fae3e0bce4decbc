package cmdutil

import "github.com/spf13/pflag"

// TeamUse is what --team means to a command, in the words its help shows.
type TeamUse string

// The meanings --team has across the commands. A command whose team means something else
// (a provider's scope, say) words it with TeamMeaning.
const (
	// TeamOwner is the team that owns the one cluster the command acts on.
	TeamOwner TeamUse = "Team that owns the cluster (required)"
	// TeamOwnerOptional is TeamOwner where the name alone may find the cluster.
	TeamOwnerOptional TeamUse = "Team that owns the cluster"
	// TeamRequired is the team the command reads or changes.
	TeamRequired TeamUse = "Team (required)"
	// TeamOfScope is the team of a team or teamAndEnvironment scope.
	TeamOfScope TeamUse = "The team of a team or teamAndEnvironment scope"
)

// TeamFilter is --team on a command that lists: only the things (plural) of that team.
func TeamFilter(things string) TeamUse { return TeamUse("Only " + things + " of this team") }

// TeamMeaning is --team with a meaning of the command's own.
func TeamMeaning(text string) TeamUse { return TeamUse(text) }

// TeamFlag declares --team on fs: the one declaration every command's team goes through
// (a structure test holds it), so its name, type and shorthand-free spelling are the same
// everywhere, completion (which finds flags by name) knows it, and the config file's
// default team (applied by the root to flags of this name) reaches every command alike.
func TeamFlag(fs *pflag.FlagSet, p *string, use TeamUse) {
	fs.StringVar(p, "team", "", string(use))
}
