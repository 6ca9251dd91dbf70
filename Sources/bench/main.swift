print("bench: placeholder")
