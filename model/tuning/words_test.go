package tuning

import (
	"testing"

	"github.com/tablefull/tablefull/model/verdict/wordstest"
)

func TestEveryReasonHasWords(t *testing.T) { wordstest.CheckKeys(t, ".", words) }
