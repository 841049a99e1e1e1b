console.log('cli placeholder')
