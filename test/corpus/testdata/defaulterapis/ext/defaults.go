package ext

// SetDefaults_Extra is Extra's base defaulter.
func SetDefaults_Extra(obj *Extra) {
	if obj.A == "" {
		obj.A = "a"
	}
}

// SetDefaults_Extra_More runs after SetDefaults_Extra.
func SetDefaults_Extra_More(obj *Extra) {}

// SetObjectDefaults_HandWritten covers HandWritten.
func SetObjectDefaults_HandWritten(obj *HandWritten) {}
