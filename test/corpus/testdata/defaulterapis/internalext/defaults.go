package internalext

import "example.com/defaulterapis/ext"

// SetDefaults_Plain gives ext's Plain a defaulter here.
func SetDefaults_Plain(obj *ext.Plain) {
	if obj.Name == "" {
		obj.Name = "plain"
	}
}
