package tui

import (
	"cmp"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"github.com/tablefull/tablefull/model/entry"
	"github.com/tablefull/tablefull/model/units"
)

// EntriesLister lists the table's entries a filter matches, every one
// counted and the first limit kept in order (sources.ListEntries for the
// host's own table). Nil where the feed cannot (a remote host, a
// recording): E then says so.
type EntriesLister func(filter entry.Filter, sort string, desc bool, limit int) (*entry.List, error)

// EntriesDeleter deletes the entries a filter matches, as tablefull
// entries --delete does (sources.DeleteEntries: refused for an empty
// filter or established connections unless established; journalled).
type EntriesDeleter func(filter entry.Filter, established bool) (entry.Deletion, error)

// entriesEvery is how often the shown entries are listed again: a walk of
// the table, as the census's, is not free for the kernel.
const entriesEvery = 5 * time.Second

// entriesPanel is the table's entries as rows: the last listing, the
// order asked, the filter, and the filter being typed after /.
type entriesPanel struct {
	list    *entry.List
	err     error
	at      time.Time
	sortIdx int
	desc    bool
	filter  entry.Filter
	// typing is the filter being typed after / (editing: its keys go
	// there until enter or esc).
	typing  string
	editing bool
	// refused says why the filter typed last was refused (its text in
	// refusedText, which / opens on again); the filter before it stays,
	// as less(1) and k9s keep theirs.
	refused, refusedText string
	pending              bool
	// asking is the deletion's question while it waits for y or n;
	// askAfterList puts it when the listing D asked for arrives.
	asking       string
	askAfterList bool
	// following is the follow under way (f), follow what it saw last;
	// followStarting says one is being started.
	following      entry.Following
	follow         *entry.Follow
	followStarting bool
	followFailed   bool
}

// entriesMsg is a listing done.
type entriesMsg struct {
	id     int
	list   *entry.List
	filter entry.Filter // the filter listed by
	err    error
	at     time.Time
}

func (m entriesMsg) hostID() int { return m.id }

// entriesDeletedMsg is a deletion done.
type entriesDeletedMsg struct {
	id  int
	d   entry.Deletion
	err error
}

func (m entriesDeletedMsg) hostID() int { return m.id }

// deleteEntriesCmd deletes in the background, and keeps the deletion in
// the recording when one runs (rec nil: none can). The console never
// deletes established connections: the command line's --established
// does.
func deleteEntriesCmd(id int, del EntriesDeleter, rec Recorder, filter entry.Filter) tea.Cmd {
	return func() tea.Msg {
		d, err := del(filter, false)
		if rec != nil && !errors.Is(err, entry.ErrDeleteRefused) {
			if rerr := rec.Deleted(time.Now(), filter, d, err); rerr != nil && err == nil {
				err = rerr
			}
		}
		return entriesDeletedMsg{id: id, d: d, err: err}
	}
}

// askDelete lists the table again and then asks: the question counts
// what the filter matches now, not at the last listing.
func (a *App) askDelete() tea.Cmd {
	if a.opts.DeleteEntries == nil {
		a.status.say("deleting entries works on a live table (this host, --netns, --ssh, --via); not over this feed yet")
		return nil
	}
	a.ents.askAfterList = true
	return a.listEntries()
}

// askDeleteNow puts the deletion's question, or says why there is none:
// a listing that failed, or a refusal.
func (a *App) askDeleteNow() {
	p := &a.ents
	switch {
	case p.list == nil || p.err != nil:
		a.status.say("no listing to delete from")
	default:
		if err := entry.DeleteRefusal(p.list, false); err != nil {
			a.status.say(err.Error() + " — on the command line: tablefull entries " + p.filter.String() + " --delete --established")
			return
		}
		what := units.Int(uint64(p.list.Matched)) + " entries"
		if p.list.Matched == 1 {
			what = "1 entry"
		}
		p.asking = fmt.Sprintf("delete what %s matches: %s (%s assured, %s unreplied)? y/n",
			p.filter.String(), what, units.Int(uint64(p.list.Assured)), units.Int(uint64(p.list.Unreplied)))
	}
}

// deleted says what the deletion did, and lists again.
func (a *App) deleted(msg entriesDeletedMsg) tea.Cmd {
	if msg.err != nil {
		a.status.say("delete: " + msg.err.Error())
	} else {
		a.status.say(msg.d.String())
	}
	return a.listEntries()
}

// listEntriesCmd lists in the background: a dump is I/O, never Update's.
func listEntriesCmd(id int, ls EntriesLister, p entriesPanel, limit int) tea.Cmd {
	return func() tea.Msg {
		l, err := ls(p.filter, entry.Sorts[p.sortIdx], p.desc, limit)
		return entriesMsg{id: id, list: l, filter: p.filter, err: err, at: time.Now()}
	}
}

// openEntries shows the entries panel and lists the table, or says why
// it cannot. Where a verdict of the frame on screen names entries to
// drop (STALE DNAT's), it opens on them, and D deletes them.
func (a *App) openEntries() tea.Cmd {
	if a.opts.Entries == nil {
		a.status.say("the entries list works on a live table (this host, --netns, --ssh, --via); not over this feed yet")
		return nil
	}
	for _, v := range a.frame().Verdicts {
		if v.Entries == "" {
			continue
		}
		args, err := entry.FilterWords(v.Entries)
		if err == nil {
			var f entry.Filter
			if f, err = entry.ParseFilter(args); err == nil {
				a.ents.filter = f
				a.status.say("the entries " + string(v.Kind) + " names: " + f.String() + " (D deletes them, / changes the filter)")
			}
		}
		break
	}
	cmd := a.show(panelEntries)
	return tea.Batch(cmd, a.listEntries())
}

// listEntries asks for a listing unless one is on its way.
func (a *App) listEntries() tea.Cmd {
	if a.ents.pending || a.opts.Entries == nil {
		return nil
	}
	a.ents.pending = true
	return listEntriesCmd(a.id, a.opts.Entries, a.ents, max(1, a.height))
}

// entriesDue lists again while the panel is shown, every entriesEvery,
// and reads its follow with each sample.
func (a *App) entriesDue() tea.Cmd {
	if a.panel != panelEntries || time.Since(a.ents.at) < entriesEvery {
		return a.followDue()
	}
	return tea.Batch(a.listEntries(), a.followDue())
}

// entriesKey handles the panel's keys: s the next sort column, S the
// other direction, / a filter in conntrack(8)'s words (enter applies it,
// esc leaves it as it was). mine says the key was the panel's.
func (a *App) entriesKey(msg tea.KeyMsg) (cmd tea.Cmd, mine bool) {
	p := &a.ents
	if p.asking != "" {
		p.asking = ""
		if key.Matches(msg, a.keys.Confirm) {
			return deleteEntriesCmd(a.id, a.opts.DeleteEntries, a.opts.Recorder, p.filter), true
		}
		a.status.say("nothing deleted")
		return nil, true
	}
	if p.editing {
		switch msg.Type {
		case tea.KeyEnter:
			args, err := entry.FilterWords(p.typing)
			var f entry.Filter
			if err == nil {
				f, err = entry.ParseFilter(args)
			}
			p.editing = false
			if err != nil {
				kept := p.filter.String()
				if kept == "" {
					kept = "no filter"
				}
				p.refused, p.refusedText = "kept "+kept+": "+strings.TrimPrefix(err.Error(), entry.ErrBadFilter.Error()+": "), p.typing
				return nil, true
			}
			p.filter, p.refused = f, ""
			return tea.Batch(a.listEntries(), a.refollow()), true
		case tea.KeyEsc:
			p.editing = false
		case tea.KeyBackspace:
			if r := []rune(p.typing); len(r) > 0 {
				p.typing = string(r[:len(r)-1])
			}
		case tea.KeyRunes, tea.KeySpace:
			if len(p.typing) < 200 { // a filter, not a document
				p.typing += string(msg.Runes)
			}
		}
		return nil, true
	}
	switch {
	case key.Matches(msg, a.keys.EntrySort):
		p.sortIdx = (p.sortIdx + 1) % len(entry.Sorts)
	case key.Matches(msg, a.keys.EntryReverse):
		p.desc = !p.desc
	case key.Matches(msg, a.keys.Filter):
		p.editing, p.typing = true, p.filter.String()
		if p.refused != "" {
			p.typing, p.refused = p.refusedText, ""
		}
		return nil, true
	case key.Matches(msg, a.keys.EntryDelete):
		return a.askDelete(), true
	case key.Matches(msg, a.keys.EntryFollow):
		return a.toggleFollow(), true
	default:
		return nil, false
	}
	return a.listEntries(), true
}

// listed takes a listing in.
func (a *App) listed(msg entriesMsg) {
	p := &a.ents
	p.pending, p.at = false, msg.at
	switch {
	case errors.Is(msg.err, entry.ErrBadFilter) && msg.filter.String() != "":
		// the host refused the filter's words (a label its connlabel.conf
		// lacks): refused as the prompt refuses one, the last good kept
		var kept entry.Filter
		if p.list != nil {
			kept = p.list.Filter
		}
		p.filter, p.refusedText = kept, msg.filter.String()
		p.refused = "kept " + cmp.Or(kept.String(), "no filter") + ": " + strings.TrimPrefix(msg.err.Error(), entry.ErrBadFilter.Error()+": ")
	case msg.err != nil:
		p.err = msg.err
	default:
		p.list, p.err = msg.list, nil
	}
	if p.askAfterList {
		p.askAfterList = false
		a.askDeleteNow()
	}
}
