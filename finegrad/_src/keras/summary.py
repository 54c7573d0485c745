"""summary"""
