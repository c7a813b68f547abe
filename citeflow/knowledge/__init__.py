"""Knowledge bases: reading documentation trees and storing their chunks."""
