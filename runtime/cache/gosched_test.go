package cache

import "runtime"

func runtimeGosched() { runtime.Gosched() }
