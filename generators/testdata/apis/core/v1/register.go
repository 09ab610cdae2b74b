package v1

// GroupName is the group of this package: the core group.
const GroupName = ""
