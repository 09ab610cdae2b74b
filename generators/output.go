package generators

import "github.com/typedinformer/typedinformer/generators/output"

// File is one generated file, rendered in memory.
type File = output.File

// GeneratedMarker is the line every generated file carries after its header.
// Files under the output directories that carry it and are no longer
// produced are stale: generate deletes them and verify reports them.
const GeneratedMarker = output.GeneratedMarker

// TempFilePrefix starts the name of every temporary file informer-gen
// writes (".informer-gen-tmp.<file>.<random>"): it is written beside its
// target and renamed over it once every file of the run is written. A run
// killed in between leaves such files behind; the next generate removes every
// one under the output directories and verify reports them.
const TempFilePrefix = output.TempFilePrefix
