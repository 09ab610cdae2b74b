package v1

// GroupName is the group, written by hand.
const GroupName = "handwritten.example.com"
