package main

import (
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// klogIgnored holds the klog flags upstream informer-gen registers that have
// no effect here: informer-gen logs to stderr only, which is what upstream
// does too with the --logtostderr=true its main sets. They are parsed (so a
// script passing them keeps working) and then ignored.
type klogIgnored struct {
	logToStderr, alsoLogToStderr, legacyThreshold     bool
	addDirHeader, skipHeaders, skipLogHeaders, oneOut bool
	logDir, logFile                                   string
	logFileMaxSize                                    uint64
	stderrThreshold, alsoStderrThreshold, backtraceAt string
}

// addLogFlags registers the log flags: -v/--v/--verbose and --vmodule, which
// set the verbosity of informer-gen's log, and the other klog flags upstream
// informer-gen accepts, which are accepted and ignored.
func addLogFlags(fs *pflag.FlagSet, f *flags) {
	fs.IntVarP(&f.verbosity, "v", "v", 0, "log verbosity, as klog's -v takes it (-v N, -v=N, --v N, --v=N); -v alone is 1: steps; 2: every group-version")
	fs.Lookup("v").NoOptDefVal = "1"
	fs.IntVar(&f.verbosity, "verbose", 0, "the same as --v")
	fs.Lookup("verbose").NoOptDefVal = "1"
	fs.StringVar(&f.vmodule, "vmodule", "", "comma-separated pattern=N settings for file-filtered logging, as klog's --vmodule")

	const ignored = " (klog flag accepted for upstream compatibility; informer-gen always logs to stderr, so it has no effect)"
	k := &f.klogIgnored
	fs.BoolVar(&k.logToStderr, "logtostderr", true, "log to standard error"+ignored)
	fs.BoolVar(&k.alsoLogToStderr, "alsologtostderr", false, "log to standard error as well as files"+ignored)
	fs.BoolVar(&k.legacyThreshold, "legacy_stderr_threshold_behavior", true, "ignore stderrthreshold when logging to stderr"+ignored)
	fs.BoolVar(&k.addDirHeader, "add_dir_header", false, "add the file directory to log headers"+ignored)
	fs.BoolVar(&k.skipHeaders, "skip_headers", false, "avoid header prefixes in log messages"+ignored)
	fs.BoolVar(&k.skipLogHeaders, "skip_log_headers", false, "avoid headers when opening log files"+ignored)
	fs.BoolVar(&k.oneOut, "one_output", false, "write logs only to their native severity level"+ignored)
	fs.StringVar(&k.logDir, "log_dir", "", "directory for log files"+ignored)
	fs.StringVar(&k.logFile, "log_file", "", "log file"+ignored)
	fs.Uint64Var(&k.logFileMaxSize, "log_file_max_size", 1800, "maximum size of a log file in MB"+ignored)
	fs.StringVar(&k.stderrThreshold, "stderrthreshold", "", "severity at or above which logs go to stderr"+ignored)
	fs.StringVar(&k.alsoStderrThreshold, "alsologtostderrthreshold", "", "severity at or above which logs go to stderr with --alsologtostderr"+ignored)
	fs.StringVar(&k.backtraceAt, "log_backtrace_at", "", "file:N at which to log a stack trace"+ignored)
	for _, name := range []string{"logtostderr", "alsologtostderr", "legacy_stderr_threshold_behavior", "add_dir_header", "skip_headers", "skip_log_headers", "one_output", "log_dir", "log_file", "log_file_max_size", "stderrthreshold", "alsologtostderrthreshold", "log_backtrace_at"} {
		_ = fs.MarkHidden(name)
	}
}

// normalizeVerbosity rewrites the verbosity forms klog accepts but that a
// flag with a default for its bare form would not: "-v N", "--v N",
// "--verbose N" and "-vN" become "-v=N" (and so on), where N is a number. A
// bare -v (no number after it) stays, meaning 1. The values of other flags
// and everything after "--" are left alone.
func normalizeVerbosity(cmd *cobra.Command, args []string) []string {
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return append(out, args[i:]...)
		case a == "-v" || a == "--v" || a == "--verbose":
			if i+1 < len(args) && isNumber(args[i+1]) {
				out = append(out, a+"="+args[i+1])
				i++
				continue
			}
		case strings.HasPrefix(a, "-v") && !strings.HasPrefix(a, "--") && isNumber(a[2:]):
			out = append(out, "-v="+a[2:])
			continue
		case strings.HasPrefix(a, "--") && !strings.Contains(a, "="):
			// A flag that takes a value consumes the next argument as is.
			if fl := cmd.PersistentFlags().Lookup(a[2:]); fl != nil && fl.NoOptDefVal == "" && i+1 < len(args) {
				out = append(out, a, args[i+1])
				i++
				continue
			}
		}
		out = append(out, a)
	}
	return out
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
