package core

// SetDefaults_WidgetSpec sets the size.
func SetDefaults_WidgetSpec(obj *WidgetSpec) {
	if obj.Size == 0 {
		obj.Size = 1
	}
}

// SetDefaults_Part calls Inner's defaulter itself.
//
// +k8s:defaulter-gen=covers
func SetDefaults_Part(obj *Part) {
	SetDefaults_Inner(&obj.Inner)
}

// SetDefaults_Inner sets the value.
func SetDefaults_Inner(obj *Inner) {
	if obj.Value == "" {
		obj.Value = "inner"
	}
}

// setDefaultsHelper is not a defaulter.
func setDefaultsHelper() {}
