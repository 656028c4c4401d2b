// ReshapeSchema module
import ReshapeJSON
