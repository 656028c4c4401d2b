// ReshapeServer module
