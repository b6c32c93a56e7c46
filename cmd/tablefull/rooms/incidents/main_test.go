package incidents

import (
	"testing"

	"github.com/tablefull/tablefull/cmd/tablefull/internal/cli"
	"github.com/tablefull/tablefull/cmd/tablefull/internal/clitest"
)

// TestMain makes this room's test binary the command as well.
func TestMain(m *testing.M) {
	clitest.Main(m, cli.Run)
}
