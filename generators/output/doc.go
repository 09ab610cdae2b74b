// Package output is the last stage of the generator, the same for every
// target: it renders the planned files (plan.File) and puts them on disk.
//
//   - render.go: Render executes each file's template concurrently, adds the
//     header and GeneratedMarker, gofmt's the result with go/format and
//     applies the file's post-processing step.
//   - header.go: the --go-header-file header (Header), its "YEAR" kept from
//     the existing file so that regenerating never churns it.
//   - tree.go: what the output directories hold before the run (Tree, read
//     by Scan): existing, generated, stale, foreign and leftover files,
//     files an upstream generator wrote, and Write, which writes changed
//     files atomically and removes stale ones.
//   - diff.go: UnifiedDiff, the unified diff verify prints.
package output
