// Package peer holds defaulters of other packages' types, found through
// --extra-peer-dirs.
package peer

import "example.com/defaulterapis/ext"

// SetDefaults_Extra_Peer runs after Extra's base defaulter.
func SetDefaults_Extra_Peer(obj *ext.Extra) {}

// SetDefaults_Mode defaults a Mode.
func SetDefaults_Mode(obj *ext.Mode) {}
