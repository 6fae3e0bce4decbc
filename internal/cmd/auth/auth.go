// Package auth groups `auth whoami` and `auth can-i`.
package auth

import (
	"github.com/spf13/cobra"

	"github.com/butlerdotdev/butler-toolkit/internal/cmd/auth/cani"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/auth/whoami"
	"github.com/butlerdotdev/butler-toolkit/internal/cmd/factory"
)

// NewCmd returns `auth`.
func NewCmd(f *factory.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "auth",
		Short: "Who you are, and what you may do",
	}
	cmd.AddCommand(whoami.NewCmd(f, nil), cani.NewCmd(f, nil))
	return cmd
}
