package diagnose

import (
	"testing"

	"github.com/tablefull/tablefull/model/verdict/wordstest"
)

func TestEveryClauseHasWords(t *testing.T) { wordstest.CheckKeys(t, ".", words) }
