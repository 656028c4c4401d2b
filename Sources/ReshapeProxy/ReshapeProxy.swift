// ReshapeProxy module
