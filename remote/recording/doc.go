// Package recording keeps and replays streams: tablefull record's life
// (Record), a recording read whole (ReadRecording) or replayed as a feed
// (Replay, OpenReplay), the console's r that tees its feed to a file
// (Tee), a deletion of entries as a recording keeps it (DeletedRecord),
// the file a recording is written to (CreateFile) and the embedded demo
// incident (Demo).
package recording
